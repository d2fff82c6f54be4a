// google flavor: phone (not written yet)
