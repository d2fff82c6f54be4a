// google flavor: clock (not written yet)
