"""Readers every adapter shares: files (heads, gzip, caps), JSON lines, log times, line logs.

Nothing here knows a source: each module turns bytes or text columns into event-table
columns, and the adapters in the sibling packages decide what the columns mean.
"""
