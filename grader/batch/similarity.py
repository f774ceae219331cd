"""Near-copies among the submissions to one exercise, for the instructor to look at: copydetect's
winnowed fingerprints of each kernel's tokens, names and whitespace normalised away, the stub's
own fingerprints left out (everyone starts from it). A pair is flagged, never penalised."""

from __future__ import annotations

import io
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

import numpy as np

K_GRAM = 25
"""Tokens per fingerprint: long enough that a few common lines of CUDA do not match."""
WINDOW = 1


@dataclass(frozen=True)
class Pair:
    first: str
    second: str
    similarity: tuple[float, float]
    """The share of each one's tokens found in the other."""
    slices: tuple[Any, Any]
    """Where in each text (its characters) the shared parts are (copydetect's slice arrays)."""

    @property
    def most(self) -> float:
        return max(self.similarity)


def _fingerprint(text: str, boilerplate: Any = None) -> Any:
    from copydetect import CodeFingerprint

    return CodeFingerprint(
        "kernel.cu", K_GRAM, WINDOW, boilerplate=boilerplate, fp=io.StringIO(text)
    )


def similar_pairs(kernels: Mapping[str, str], stub: str, threshold: float) -> list[Pair]:
    """Every pair of students whose kernels share at least `threshold` of the tokens of one of
    them (the stub's excepted), most similar first."""
    from copydetect import compare_files

    boilerplate = np.array(sorted(_fingerprint(stub).hashes), dtype=np.int64)
    prints = {student: _fingerprint(text, boilerplate) for student, text in kernels.items()}
    students = sorted(prints)
    pairs = []
    for i, first in enumerate(students):
        for second in students[i + 1 :]:
            _, shares, slices = compare_files(prints[first], prints[second])
            pair = Pair(first, second, (float(shares[0]), float(shares[1])), slices)
            if pair.most >= threshold:
                pairs.append(pair)
    return sorted(pairs, key=lambda p: (-p.most, p.first, p.second))


def highlighted(text: str, slices: Any) -> str:
    """`text` as HTML (escaped), the shared parts marked."""
    import html

    from copydetect.utils import highlight_overlap

    if len(slices) == 0 or slices.shape[-1] == 0:
        return html.escape(text)
    marked, _ = highlight_overlap(text, slices, "<mark>", "</mark>", escape_html=True)
    return str(marked)
