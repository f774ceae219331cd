"""Batch grading throughput on a GPU: generates a class of submissions (correct, wrong, slow,
not compiling, hanging, crashing; as folders, zips and notebooks) for ex1 and ex4 (timed), grades
them with `grader batch --gpus 0`, and prints submission-exercises per minute, the time per
stage, and whether the lane's timed sections ever overlapped. Then re-grades a sample with
`grader check` and compares the verdicts.

    python benchmarks/batch_throughput.py [--students N] [--jobs J] [--write]   (on a GPU machine)
"""

from __future__ import annotations

import argparse
import json
import sqlite3
import subprocess
import sys
import tempfile
import time
import zipfile
from collections import Counter
from pathlib import Path
from typing import Any

from result_files import gpu_name, row, write

ROOT = Path(__file__).resolve().parent.parent
EX1 = ROOT / "solutions/ex1-non-square"
EX4 = ROOT / "solutions/ex4-register-tiling"
DIRS = {"ex1": "ex1-non-square", "ex4": "ex4-register-tiling"}
TARGET_PER_MINUTE = 200.0
SEED = 7


def _crashing(solution: str) -> str:
    """The solution, its kernel storing to an unmapped address first: an illegal address, the
    CUDA context is lost."""
    head, body = solution.split("__global__", 1)
    return head + "__global__" + body.replace("{", "{ *((volatile float*)8ull) = 1.0f;", 1)


KINDS: list[tuple[str, str, str]] = [
    # (what, ex1 kernel, ex4 kernel); texts are read lazily below
    ("correct", "kernel.cu", "kernel.cu"),
    ("correct", "kernel.cu", "kernel.cu"),
    ("correct", "kernel.cu", "kernel.cu"),
    ("correct", "kernel.cu", "kernel.cu"),
    ("wrong", "wrong/no_load_bounds.cu", "wrong/no_edge_guards.cu"),
    ("wrong", "wrong/floor_tiles.cu", "wrong/second_row_skipped.cu"),
    ("slow", "kernel.cu", "wrong/slow_correct.cu"),
    ("cheat", "kernel.cu", "wrong/work_first_launches.cu"),
    ("not compiling", "wrong/syntax_error.cu", "wrong/missing_barrier.cu"),
    ("correct", "kernel.cu", "kernel.cu"),
    ("crashing", "kernel.cu", "crash"),
    ("correct", "kernel.cu", "kernel.cu"),
    ("hanging", "wrong/endless_loop.cu", "kernel.cu"),
    ("correct", "kernel.cu", "kernel.cu"),
]


def _kernel(exercise: str, name: str) -> str:
    base = EX1 if exercise == "ex1" else EX4
    if name == "crash":
        return _crashing((base / "kernel.cu").read_text())
    return (base / name).read_text()


def _notebook(cells: dict[str, str]) -> str:
    import nbformat

    book = nbformat.v4.new_notebook()
    for key, text in cells.items():
        book.cells.append(nbformat.v4.new_code_cell(f"// grader: {key}\n{text}"))
    return nbformat.writes(book)


def generate(root: Path, students: int) -> dict[str, str]:
    """Write the class; returns student -> kind."""
    kinds = {}
    for i in range(students):
        kind, ex1, ex4 = KINDS[i % len(KINDS)]
        student = f"s{i:03d}"
        kinds[student] = kind
        texts = {"ex1": _kernel("ex1", ex1), "ex4": _kernel("ex4", ex4)}
        layout = ("folder", "zip", "notebook")[i % 3]
        if layout == "notebook":
            (root / student).mkdir()
            (root / student / "work.ipynb").write_text(_notebook(texts))
        elif layout == "zip":
            with zipfile.ZipFile(root / f"{student}.zip", "w") as zipped:
                for key, text in texts.items():
                    zipped.writestr(f"{DIRS[key]}/kernel.cu", text)
        else:
            for key, text in texts.items():
                (root / student / DIRS[key]).mkdir(parents=True)
                (root / student / DIRS[key] / "kernel.cu").write_text(text)
    return kinds


def _stages(database: Path) -> tuple[Counter[str], Counter[str], int]:
    seconds: Counter[str] = Counter()
    statuses: Counter[str] = Counter()
    with sqlite3.connect(database) as db:
        rows = db.execute("SELECT report_json FROM results").fetchall()
    for (text,) in rows:
        for check in json.loads(text)["checks"]:
            seconds[check["kind"]] += check["figures"].get("wall_s", 0.0)
            for part in ("prepare_s", "timed_s", "after_s"):  # the timed check's own split
                seconds[f"performance {part}"] += check["figures"].get(part, 0.0)
            statuses[f"{check['kind']} {check['status']}"] += 1
    return seconds, statuses, len(rows)


def _timing_span(log: Path, began: float) -> tuple[str, float]:
    """When the lane's timed sections ran, from the batch's start, and their time in all: timings
    spread over the batch, or piled up at its end?"""
    wall_start = time.time() - (time.perf_counter() - began)
    stamps = [(float(line.split()[0]), line.split()[2]) for line in log.read_text().splitlines()]
    starts = [t for t, what in stamps if what == "start"]
    ends = [t for t, what in stamps if what == "end"]
    held = sum(e - s for s, e in zip(sorted(starts), sorted(ends), strict=False))
    text = (
        f"timed from {min(starts) - wall_start:.1f} s to {max(ends) - wall_start:.1f} s, "
        f"exclusive {held:.1f} s in all"
    )
    return text, held


def _reports(database: Path) -> dict[tuple[str, str], dict[str, Any]]:
    with sqlite3.connect(database) as db:
        rows = db.execute("SELECT student, exercise, report_json FROM results").fetchall()
    return {(student, exercise): json.loads(text) for student, exercise, text in rows}


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--students", type=int, default=100)
    parser.add_argument("--jobs", type=int, default=8)
    parser.add_argument("--write", action="store_true")
    parser.add_argument("--profile", type=Path, help="write a sampling profile of the batch here")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="grader-batch-bench-") as scratch:
        root = Path(scratch) / "class"
        root.mkdir()
        kinds = generate(root, args.students)
        out = Path(scratch) / "out"
        command = [sys.executable, "-m", "grader", "batch", str(root), "--out", str(out)]
        if args.profile:
            command[1:1] = [str(ROOT / "benchmarks/sampled.py"), str(args.profile.resolve())]
        command += ["--exercise", "ex1", "--exercise", "ex4", "--gpus", "0", "--backend", "gpu"]
        command += ["--jobs", str(args.jobs), "--seed", str(SEED)]  # mixed with OUT/secret.key
        start = time.perf_counter()
        done = subprocess.run(command, cwd=ROOT, capture_output=True, text=True, check=False)
        wall = time.perf_counter() - start
        if done.returncode != 0:
            print(done.stderr[-3000:])
            return 1
        seconds, statuses, gradings = _stages(out / "results.sqlite")
        from grader.batch.lanes import overlaps

        summary = (out / "summary.md").read_text()
        baselines = summary.split("## Baseline timings per GPU lane", 1)[-1].strip()
        log = out / "lanes/gpu0/timing.log"
        timed = len(log.read_text().splitlines()) // 2 if log.is_file() else 0
        span, held = _timing_span(log, start) if log.is_file() else ("", 0.0)
        problems = overlaps(log) if log.is_file() else []
        # the same files through `grader check` (with the seed the batch drew), one of each kind
        reports = _reports(out / "results.sqlite")
        sample = {kind: student for student, kind in reversed(list(kinds.items()))}
        mismatches = []
        for kind, student in sorted(sample.items()):
            for key in ("ex1", "ex4"):
                places = (
                    root / student / DIRS[key] / "kernel.cu",
                    out / "work/unzipped" / student / DIRS[key] / "kernel.cu",
                    root / student / "work.ipynb",
                )
                kernel = next((p for p in places if p.is_file()), None)
                batch = reports.get((student, key))
                if kernel is None or batch is None:
                    mismatches.append(f"{student} {key}: not found")
                    continue
                command = [sys.executable, "-m", "grader", "check", key, "--file", str(kernel)]
                command += ["--seed", str(batch["seed"]), "--json"]
                check = subprocess.run(command, cwd=ROOT, capture_output=True, text=True)
                single = [c["status"] for c in json.loads(check.stdout)["checks"]]
                if single != [c["status"] for c in batch["checks"]]:
                    mismatches.append(f"{student} ({kind}) {key}: batch and check differ")
    per_minute = gradings / (wall / 60)
    met = "met" if per_minute >= TARGET_PER_MINUTE else "NOT met"
    ceiling = "none timed"
    if held:
        ceiling = f"{gradings / (held / 60):.1f} per minute; wall / timed: {wall / held:.2f}"
    lines = [
        f"grader batch --gpus 0 --jobs {args.jobs}: {args.students} students x 2 exercises "
        f"(ex1, ex4 timed), {time.strftime('%Y-%m-%d')}, on {gpu_name()}",
        f"kinds: {dict(Counter(kinds.values()))}; layouts: folder, zip, notebook in turn",
        f"gradings: {gradings} in {wall:.1f} s = {per_minute:.1f} submission-exercises per minute "
        f"(target >= {TARGET_PER_MINUTE:.0f}: {met})",
        "time per stage, summed over gradings (s): "
        + ", ".join(f"{kind} {s:.1f}" for kind, s in sorted(seconds.items())),
        "check outcomes: " + ", ".join(f"{k} {v}" for k, v in sorted(statuses.items())),
        f"timed sections on lane gpu0: {timed}, overlapping: {len(problems)}; {span}",
        f"ceiling, the exclusive timed sections alone: {ceiling}",
        f"baseline per lane (re-measured, interleaved, in every timed grading): {baselines}",
        f"batch vs grader check on one submission of each kind: "
        f"{'all equal' if not mismatches else '; '.join(mismatches)}",
    ]
    print("\n".join(lines))
    if args.write:
        rows = [
            row(
                "submission-exercises per minute",
                per_minute,
                "per minute",
                floor=gradings / (held / 60) if held else None,
                floor_is="the same gradings if the wall time were only the lane's exclusive "
                "timed sections (the least it can be on one GPU)",
                target=TARGET_PER_MINUTE,
                at_least=True,
            ),
            row("wall time", wall, "s", floor=held, floor_is="exclusive timed sections"),
            row("overlapping timed sections", len(problems), "pairs", target=0),
            row("batch verdicts unlike grader check's", len(mismatches), "gradings", target=0),
        ]
        write(
            f"batch_throughput{'' if args.jobs == 8 else f'_jobs{args.jobs}'}",
            lines,
            rows,
            jobs=args.jobs,
            students=args.students,
            stages_s=dict(seconds),
        )
    return 0 if not mismatches and not problems else 1


if __name__ == "__main__":
    sys.exit(main())
