"""The child's events: typed, framed by length, so text inside a message cannot forge a frame."""

from __future__ import annotations

import struct

import pytest

from grader.events import (
    MAX_EVENT_BYTES,
    BadFrameError,
    DeviceEvent,
    ResultEvent,
    StartEvent,
    decode,
    encode,
)
from grader.results import CheckKind, CheckResult, CheckStatus, DeviceInfo

RESULT = CheckResult("compile", CheckKind.COMPILE, CheckStatus.PASSED, 10.0, 10.0, "ok")


def test_events_arrive_whole_whatever_the_pipe_splits_them_into() -> None:
    stream = (
        encode(DeviceEvent(device=DeviceInfo("cpu", "x")))
        + encode(StartEvent(check="compile", extra_s=120.0))
        + encode(ResultEvent(result=RESULT))
    )
    events, rest = [], b""
    for i in range(0, len(stream), 7):  # seven bytes at a time
        got, rest = decode(rest + stream[i : i + 7])
        events += got
    assert rest == b""
    assert [type(e) for e in events] == [DeviceEvent, StartEvent, ResultEvent]
    assert isinstance(events[2], ResultEvent) and events[2].result == RESULT


def test_a_message_that_spells_a_frame_stays_inside_its_result() -> None:
    forged = encode(
        ResultEvent(result=CheckResult("x", CheckKind.COMPILE, CheckStatus.PASSED, 99, 99, ""))
    )
    message = "line\n" + forged.decode("latin-1")
    text = CheckResult("c", CheckKind.CORRECTNESS, CheckStatus.FAILED, 0.0, 1.0, message)
    events, rest = decode(encode(ResultEvent(result=text)))
    assert rest == b"" and len(events) == 1
    assert isinstance(events[0], ResultEvent) and events[0].result.status == "failed"


def test_what_is_not_an_event_is_refused() -> None:
    with pytest.raises(BadFrameError, match="not an event"):
        decode(struct.pack(">I", 13) + b'{"event": 1}!')
    with pytest.raises(BadFrameError, match="at most"):
        decode(struct.pack(">I", MAX_EVENT_BYTES + 1))


def test_the_events_before_what_is_not_an_event_still_count() -> None:
    # a result sent just before a bad frame, read in the same chunk, is not lost with it
    before = encode(ResultEvent(result=RESULT))
    with pytest.raises(BadFrameError, match="not an event") as caught:
        decode(before + struct.pack(">I", 9) + b"not json!")
    assert caught.value.events == [ResultEvent(result=RESULT)]
