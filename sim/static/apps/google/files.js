// google flavor: files (not written yet)
