"""Training policies in the simulator."""
