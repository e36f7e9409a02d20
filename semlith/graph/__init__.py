"""The code graph at query time (issue #22): stored edges resolved to definitions
(`resolve.py`), and the walks the commands answer (`walk.py`)."""
