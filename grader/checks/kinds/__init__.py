"""One module per kind of check, each defining a `Check` (grader/checks/base.py)."""
