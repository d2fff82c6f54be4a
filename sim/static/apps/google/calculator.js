// google flavor: calculator (not written yet)
