"""Reading YAML files so that every value can be traced back to its line."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import yaml

from grader.errors import GraderError

Loc = tuple[str | int, ...]


@dataclass
class YamlDocument:
    """A parsed YAML file: its data, and the 1-based line of every key and item in it."""

    path: Path
    data: Any
    lines: dict[Loc, int] = field(default_factory=dict)

    def line_of(self, loc: Sequence[str | int]) -> int | None:
        """The line of `loc`, or of its nearest ancestor that has one."""
        key = tuple(loc)
        while key:
            if key in self.lines:
                return self.lines[key]
            key = key[:-1]
        return None

    def where(self, loc: Sequence[str | int]) -> str:
        """`file:line` for a location in this document (the file alone when nothing matches)."""
        line = self.line_of(loc)
        return f"{self.path}:{line}" if line else str(self.path)


def _record_lines(node: yaml.Node, loc: Loc, lines: dict[Loc, int]) -> None:
    if isinstance(node, yaml.MappingNode):
        for key_node, value_node in node.value:
            if isinstance(key_node, yaml.ScalarNode):
                child = (*loc, key_node.value)
                lines[child] = key_node.start_mark.line + 1
                _record_lines(value_node, child, lines)
    elif isinstance(node, yaml.SequenceNode):
        for index, item in enumerate(node.value):
            child = (*loc, index)
            lines[child] = item.start_mark.line + 1
            _record_lines(item, child, lines)


def read_yaml(path: Path) -> YamlDocument:
    """Parse `path`; a missing file, bad encoding or bad syntax is a GraderError naming the file."""
    try:
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        raise GraderError(f"{path}: file not found") from None
    except UnicodeDecodeError as exc:
        raise GraderError(f"{path}: not UTF-8 text (byte {exc.start})") from None
    except OSError as exc:
        raise GraderError(f"{path}: cannot read: {exc.strerror}") from None
    try:
        node = yaml.compose(text, Loader=yaml.SafeLoader)
        data = yaml.safe_load(text)
    except yaml.MarkedYAMLError as exc:
        mark = exc.problem_mark
        line = f":{mark.line + 1}" if mark is not None else ""
        raise GraderError(f"{path}{line}: not valid YAML: {exc.problem}") from None
    except yaml.reader.ReaderError as exc:
        number = text.count("\n", 0, exc.position) + 1
        raise GraderError(
            f"{path}:{number}: not valid YAML: character {exc.character!r} is not allowed"
        ) from None
    except yaml.YAMLError as exc:
        first = str(exc).strip().splitlines()[0] if str(exc).strip() else type(exc).__name__
        raise GraderError(f"{path}: not valid YAML: {first}") from None
    lines: dict[Loc, int] = {}
    if node is not None:
        alias = _first_alias(node)
        if alias is not None:
            raise GraderError(
                f"{path}:{alias.start_mark.line + 1}: YAML anchors and aliases (&name, *name) "
                "are not allowed here: write each value out"
            )
        _record_lines(node, (), lines)
    return YamlDocument(path=path, data=data, lines=lines)


def _first_alias(root: yaml.Node) -> yaml.Node | None:
    """A node reached a second time (an alias), found in one pass over the node graph: nested
    aliases ("a billion laughs") make a small file stand for an exponentially large document,
    which validating or walking it would take forever to visit."""
    seen: set[int] = set()
    stack = [root]
    while stack:
        node = stack.pop()
        if id(node) in seen:
            return node
        seen.add(id(node))
        if isinstance(node, yaml.MappingNode):
            stack.extend(part for pair in node.value for part in pair)
        elif isinstance(node, yaml.SequenceNode):
            stack.extend(node.value)
    return None
