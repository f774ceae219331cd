"""The results database's tables: every grading (results), when each hand-in came
(handed_in), who made it (submitters), and the results of exercises dropped from a resubmission
(set_aside), and what the last run found (batch_view: who, which exercises, what was missing,
refused or skipped, for writing the outputs again). The reviews are grader/batch/reviews.py's."""

SCHEMA = """
CREATE TABLE IF NOT EXISTS results (
    id INTEGER PRIMARY KEY,
    run_id TEXT NOT NULL,
    student TEXT NOT NULL,
    exercise TEXT NOT NULL,
    source_sha256 TEXT NOT NULL,
    score REAL NOT NULL,
    max_score REAL NOT NULL,
    passed INTEGER NOT NULL,
    report_json TEXT NOT NULL,
    device TEXT NOT NULL,
    grader_version TEXT NOT NULL,
    graded_at TEXT NOT NULL
);
CREATE INDEX IF NOT EXISTS by_submission ON results (student, exercise, id);
CREATE TABLE IF NOT EXISTS handed_in (
    student TEXT NOT NULL,
    exercise TEXT NOT NULL,
    source_sha256 TEXT NOT NULL,
    submitted_at REAL NOT NULL,
    source TEXT NOT NULL,
    PRIMARY KEY (student, exercise, source_sha256)
);
CREATE TABLE IF NOT EXISTS submitters (
    student TEXT NOT NULL,
    position INTEGER NOT NULL,
    sid TEXT NOT NULL,
    email TEXT NOT NULL,
    name TEXT NOT NULL,
    PRIMARY KEY (student, position)
);
CREATE TABLE IF NOT EXISTS set_aside (
    student TEXT NOT NULL,
    exercise TEXT NOT NULL,
    last_id INTEGER NOT NULL,
    PRIMARY KEY (student, exercise)
);
CREATE TABLE IF NOT EXISTS batch_view (
    id INTEGER PRIMARY KEY CHECK (id = 1),
    view_json TEXT NOT NULL
);
"""

CURRENT = (
    "NOT EXISTS (SELECT 1 FROM set_aside a WHERE a.student = r.student"
    " AND a.exercise = r.exercise AND a.last_id >= r.id)"
)
"""A result not set aside: its exercise was handed in again after it was dropped."""
