"""Oracle solutions: scripted skills per app, and the OraclePolicy that runs them."""
