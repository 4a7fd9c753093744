"""Loading a spec: safe YAML with source positions, JSON Schema, semantic checks."""
