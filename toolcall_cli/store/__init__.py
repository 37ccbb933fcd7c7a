"""The store: the event table as Parquet in correlation buckets (DESIGN §6b), and what reads,
queries and diagnoses it bucket by bucket."""
