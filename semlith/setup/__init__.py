"""`semlith setup` and `semlith doctor`: agent clients, their config files,
the instruction block, and what this installation offers."""
