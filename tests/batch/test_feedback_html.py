"""Feedback pages on request (`grader feedback OUT`): one self-contained HTML page per student,
with the plots, from that student's own results only; text from submissions is escaped."""

from __future__ import annotations

from pathlib import Path

from grader.batch.store import ResultStore
from grader.report.feedback_html import feedback_html
from grader.results import CheckResult, DeviceInfo, Report
from tests.conftest import run_grader

TIMED = {"speedup": 1.85, "rse": 0.001, "min_speedup": 1.73}


def _report(message: str, seed: int = 123456789) -> Report:
    checks = [
        CheckResult("compile", "compile", "failed", 0, 10, message),
        CheckResult("performance", "performance", "passed", 20, 20, "fast", figures=TIMED),
    ]
    return Report(
        "ex4", "2x2 register tiling", "kernel.cu", seed, DeviceInfo("gpu", "H200"), checks
    )


def test_the_page_escapes_submitted_text_and_draws_the_speedup() -> None:
    page = feedback_html("<b>eve</b>", [_report("kernel.cu:3: <script>alert(1)</script>")])
    assert "<script>" not in page and "&lt;script&gt;" in page
    assert "<title>Feedback: &lt;b&gt;eve&lt;/b&gt;</title>" in page
    assert 'alt="ex4: speedup" src="data:image/png;base64,' in page


def test_feedback_writes_the_pages_asked_for_with_nothing_of_anyone_else(tmp_path: Path) -> None:
    out = tmp_path / "out"
    store = ResultStore(out / "results.sqlite")
    store.record("run", "alice", "ex4", "a", _report("alice's message", seed=111111111))
    store.record("run", "bob", "ex4", "b", _report("bob's message", seed=222222222))
    store.close()
    (out / "secret.key").write_bytes(b"s3cr3t" * 10)
    done = run_grader(["feedback", str(out), "--student", "alice"])
    assert done.returncode == 0, done.stderr
    written = sorted(p.name for p in (out / "feedback").iterdir())
    assert written == ["alice.html", "alice.json", "alice.md"]
    page = (out / "feedback/alice.html").read_text()
    assert "alice&#x27;s message" in page or "alice's message" in page
    for name in written:
        text = (out / "feedback" / name).read_text()
        assert "bob" not in text and "s3cr3t" not in text and "111111111" not in text
    unknown = run_grader(["feedback", str(out), "--student", "zed"])
    assert unknown.returncode == 2 and "no student zed in this batch" in unknown.stderr


def test_feedback_finds_a_student_by_a_submitters_sid_as_batch_does(tmp_path: Path) -> None:
    from grader.batch.submitters import Submitter

    out = tmp_path / "out"
    store = ResultStore(out / "results.sqlite")
    store.record("run", "submission_7", "ex4", "a", _report("grace's message"))
    store.record("run", "submission_8", "ex4", "b", _report("hal's message"))
    store.record_submitters({"submission_7": [Submitter("1002", "g@uni.edu", "Grace")]})
    store.close()
    done = run_grader(["feedback", str(out), "--student", "1002"])
    assert done.returncode == 0, done.stderr
    assert sorted(p.name for p in (out / "feedback").iterdir()) == [
        "submission_7.html", "submission_7.json", "submission_7.md"
    ]  # fmt: skip


def test_feedback_writes_what_the_batch_wrote_for_missing_and_nothing_graded(
    tmp_path: Path,
) -> None:
    # the batch's own feedback and `grader feedback`'s say the same: what each student handed
    # nothing in for, and why nothing of theirs was graded
    out = tmp_path / "out"
    store = ResultStore(out / "results.sqlite")
    store.record("run", "alice", "ex4", "a", _report("alice's message"))
    store.record_view(
        {
            "students": ["alice", "cat"],
            "exercises": ["ex1", "ex4"],
            # 'student: exercise', as a batch folder of an older grader holds it
            "missing": ["alice: ex1", ["cat", "ex1"], "cat: ex4"],
            "notes": [
                "alice: folder, 1 of 2 exercise(s) found; not read: extra.cu (why)",
                "cat.cu: not read: one kernel",
            ],
        }
    )
    store.close()
    done = run_grader(["feedback", str(out)])
    assert done.returncode == 0, done.stderr
    assert "feedback: 2 student(s)" in done.stdout
    feedback = out / "feedback"
    for name in ("alice.md", "alice.html"):  # what was missing, and what was not read, and why
        text = (feedback / name).read_text()
        assert "Not found: ex1" in text and "not read: extra.cu (why)" in text, name
        assert "one kernel" not in text  # cat's
    for name in ("cat.md", "cat.html"):
        text = (feedback / name).read_text()
        assert "Nothing graded" in text and "not read: one kernel" in text, name
