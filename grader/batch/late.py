"""The late policy (course.yaml's `deadlines`) applied to one hand-in: how many days late, and
the share of its points that costs."""

from __future__ import annotations

import math
from collections.abc import Collection
from dataclasses import dataclass
from datetime import timedelta

from grader.course import LatePolicy
from grader.report.stored import Roster

DAY_S = 86400.0


@dataclass(frozen=True)
class Lateness:
    days: int | None
    """Days late, counting a part of one as one (0: on time; None: the hand-in time is
    unknown, counted as on time and said so)."""
    kept: float
    """The share of the points kept (1 on time, 0 past the last day accepted)."""


def lateness(
    policy: LatePolicy | None, student: str, exercise: str, submitted_at: float | None
) -> Lateness:
    if policy is None or exercise not in policy.due:
        return Lateness(0, 1.0)
    if submitted_at is None:
        return Lateness(None, 1.0)
    extra_h = policy.extensions.get(student, {}).get(exercise, 0.0)
    deadline = policy.due[exercise] + timedelta(minutes=policy.grace_minutes, hours=extra_h)
    late_s = submitted_at - deadline.timestamp()
    if late_s <= 0:
        return Lateness(0, 1.0)
    days = math.ceil(late_s / DAY_S)
    if policy.max_days_late is not None and days > policy.max_days_late:
        return Lateness(days, 0.0)
    return Lateness(days, max(0.0, 1.0 - days * policy.penalty_per_day))


def for_students(
    policy: LatePolicy | None, students: Collection[str], roster: Roster
) -> tuple[LatePolicy | None, list[str]]:
    """`policy` with each extension keyed as the batches name students: a key that is a
    student's key, or the SID, e-mail or name of someone behind a submission (a Gradescope
    export's group gets it); and the keys that are none of these (an extension given to no one
    is said, never dropped in silence)."""
    if policy is None or not policy.extensions:
        return policy, []
    aliases: dict[str, set[str]] = {}
    for student in students:
        aliases.setdefault(student.casefold(), set()).add(student)
        for person in roster.get(student, ()):
            for name in (person.sid, person.email, person.name):
                if name:
                    aliases.setdefault(name.casefold(), set()).add(student)
    extensions: dict[str, dict[str, float]] = {}
    unknown = []
    for key, hours in policy.extensions.items():
        owners = {key} if key in students else aliases.get(key.casefold(), set())
        if not owners:
            unknown.append(key)
        for owner in owners:
            mine = extensions.setdefault(owner, {})
            for exercise, extra in hours.items():
                mine[exercise] = max(mine.get(exercise, 0.0), extra)
    return policy.model_copy(update={"extensions": extensions}), unknown
