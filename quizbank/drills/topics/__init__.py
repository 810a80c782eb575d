"""The drills by topic: each package holds its drills (`drills.py`, no torch) and their cases (`cases.py`)."""
