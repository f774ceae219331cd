"""Grading harness for a GPU matrix-multiplication course."""

from __future__ import annotations

__version__ = "0.1.0"
