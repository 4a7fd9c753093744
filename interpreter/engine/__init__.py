"""The engine: compiled step programs, the run loop, decisions."""
