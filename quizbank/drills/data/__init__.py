"""Drill texts: statements, hints, starters and model solutions (plain strings, no torch)."""
