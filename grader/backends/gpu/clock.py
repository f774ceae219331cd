"""The SM clock as nvidia-smi reports it, read in the background so that it costs no wait."""

from __future__ import annotations

import subprocess


class SmClock:
    """A reading started on construction; `mhz()` waits for it (at most 10 s)."""

    def __init__(self) -> None:
        try:
            self._process: subprocess.Popen[str] | None = subprocess.Popen(
                ["nvidia-smi", "--query-gpu=clocks.sm", "--format=csv,noheader,nounits", "-i", "0"],
                stdout=subprocess.PIPE,
                stderr=subprocess.DEVNULL,
                text=True,
            )
        except OSError:
            self._process = None

    def mhz(self) -> str:
        if self._process is None:
            return "?"
        try:
            out, _ = self._process.communicate(timeout=10)
        except subprocess.TimeoutExpired:
            self._process.kill()
            return "?"
        return out.strip() or "?"
