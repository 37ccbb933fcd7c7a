"""The typer layer: parse → call the core → render → exit."""
