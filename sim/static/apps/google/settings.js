// google flavor: settings (not written yet)
