"""What every diagnose rule shares: the context it reads, evidence, incidents, headlines."""
