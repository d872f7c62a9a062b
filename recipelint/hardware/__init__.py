"""Hardware facts: probed on this machine or read from a saved profile of the training node."""
