"""Cards, zones and the State: plain data."""
