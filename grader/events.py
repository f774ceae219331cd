"""The grading child's events to its parent: typed models, framed as length-prefixed JSON.

Each frame is a 4-byte big-endian length, then that many bytes of one event's JSON. The channel
is a pipe only the child's Python holds (student code runs on the device, or as a separate,
sandboxed program without it), and a frame cannot be spliced by text in a message: lengths, not
newlines, delimit events. A frame that does not parse as an event ends the child's report."""

from __future__ import annotations

import struct
from typing import Annotated, BinaryIO, Literal

from pydantic import BaseModel, ConfigDict, Field, TypeAdapter, ValidationError

from grader.results import CheckResult, DeviceInfo, Stage

_HEADER = struct.Struct(">I")
MAX_EVENT_BYTES = 1 << 20
"""A result's message is bounded (text_bounds), so a larger frame is not an event."""


class _Event(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


class DeviceEvent(_Event):
    """The device the child grades on (sent first)."""

    event: Literal["device"] = "device"
    device: DeviceInfo


class StartEvent(_Event):
    """What runs next, and the seconds it adds to the parent's time limit for it."""

    event: Literal["start"] = "start"
    check: str
    extra_s: float = 0.0


class StageEvent(_Event):
    """A step before the checks (a build) and what it cost."""

    event: Literal["stage"] = "stage"
    stage: Stage


class ResultEvent(_Event):
    """One check's result, sent as soon as it is known."""

    event: Literal["result"] = "result"
    result: CheckResult


class FinishedEvent(_Event):
    """A serving child (grader.worker --serve) is done with its job: `code` is what a one-shot
    child would have exited with; `reusable` says whether it can take another job (its device is
    a GPU whose context is still healthy and whose memory it has released)."""

    event: Literal["finished"] = "finished"
    code: int
    reusable: bool


Event = Annotated[
    DeviceEvent | StartEvent | StageEvent | ResultEvent | FinishedEvent,
    Field(discriminator="event"),
]
_EVENT: TypeAdapter[Event] = TypeAdapter(Event)


class BadFrameError(Exception):
    """The channel carried something that is not an event; `events` are the whole events that
    came before it in the same buffer (they still count)."""

    def __init__(self, message: str, events: list[Event]) -> None:
        super().__init__(message)
        self.events = events


def encode(event: Event) -> bytes:
    return frame(event.model_dump_json().encode())


def frame(body: bytes) -> bytes:
    """`body` framed as on the channel (a serving child's jobs travel so on its stdin)."""
    return _HEADER.pack(len(body)) + body


def read_frame(stream: BinaryIO) -> bytes | None:
    """The next frame's body from a blocking stream; None at its end (or a truncated frame)."""
    header = stream.read(_HEADER.size)
    if len(header) < _HEADER.size:
        return None
    (length,) = _HEADER.unpack(header)
    body = stream.read(length)
    return body if len(body) == length else None


def decode(buffer: bytes) -> tuple[list[Event], bytes]:
    """The whole events at the start of `buffer`, and the bytes left over (a partial frame)."""
    events: list[Event] = []
    while len(buffer) >= _HEADER.size:
        (length,) = _HEADER.unpack_from(buffer)
        if length > MAX_EVENT_BYTES:
            raise BadFrameError(f"an event of {length} bytes (at most {MAX_EVENT_BYTES})", events)
        if len(buffer) < _HEADER.size + length:
            break
        body = buffer[_HEADER.size : _HEADER.size + length]
        buffer = buffer[_HEADER.size + length :]
        try:
            events.append(_EVENT.validate_json(body))
        except ValidationError as exc:
            raise BadFrameError(f"not an event: {exc.errors()[0]['msg']}", events) from None
    return events, buffer
