"""The data model: the event table and source traits, findings, config, registry, redaction."""
