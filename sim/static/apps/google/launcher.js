// google flavor: launcher (not written yet)
