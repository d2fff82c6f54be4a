// google flavor: messages (not written yet)
