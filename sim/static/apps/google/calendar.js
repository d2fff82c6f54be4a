// google flavor: calendar (not written yet)
