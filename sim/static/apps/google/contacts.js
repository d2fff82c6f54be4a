// google flavor: contacts (not written yet)
