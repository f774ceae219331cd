"""`python -m grader`: the same as the `grader` command."""

from __future__ import annotations

import sys

from grader.cli import main

sys.exit(main())
