"""The late policy (course.yaml's `deadlines`) applied to one hand-in: how many days late, and
the share of its points that costs."""

from __future__ import annotations

import math
from dataclasses import dataclass
from datetime import timedelta

from grader.course import LatePolicy

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
