"""Examples that train a policy against the environment server with off-the-shelf RL trainers (TRL, ...)."""
