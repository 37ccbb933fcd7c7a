"""Core data model: the event table, findings, registry, config, store."""
