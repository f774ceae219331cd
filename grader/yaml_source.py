"""Reading YAML files so that every value can be traced back to its line, and so that no file,
however hostile, costs more than a bounded amount of memory and time: its size, its nesting and
its keys are limited, and anchors and aliases (which let a small file stand for a huge
document) are refused. Every YAML file the grader reads goes through `read_yaml`."""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import yaml

from grader.bounded_read import read_bounded
from grader.errors import GraderError

Loc = tuple[str | int, ...]

MAX_YAML_BYTES = 1024 * 1024
"""The default limit on a YAML file's size (specs, course.yaml and answers are a few KiB)."""
MAX_YAML_DEPTH = 64
"""Collections nested deeper than this are refused (PyYAML's composer recurses per level)."""
ALIASES = "YAML anchors and aliases (&name, *name) are not allowed here: write each value out"


@dataclass
class YamlDocument:
    """A parsed YAML file: its data, and the 1-based line of every key and item in it."""

    path: Path
    data: Any
    lines: dict[Loc, int] = field(default_factory=dict)
    columns: dict[Loc, int] = field(default_factory=dict)
    """The 1-based column of every key and item."""
    _spelled: dict[tuple[str, ...], Loc] | None = field(default=None, repr=False)

    def _found(self, loc: Sequence[str | int]) -> Loc | None:
        """`loc`, or its nearest ancestor, as recorded (a validator may give a mapping's key
        `8` as a number where the document records the text `8`)."""
        if self._spelled is None:  # built once: an answers file may have thousands of keys
            self._spelled = {tuple(str(p) for p in key): key for key in self.lines}
        spelled = self._spelled
        key = tuple(str(p) for p in loc)
        while key:
            if key in spelled:
                return spelled[key]
            key = key[:-1]
        return None

    def line_of(self, loc: Sequence[str | int]) -> int | None:
        """The line of `loc`, or of its nearest ancestor that has one."""
        found = self._found(loc)
        return self.lines[found] if found is not None else None

    def where_exactly(self, loc: Sequence[str | int]) -> str:
        """`file:line:column` of `loc` (or its nearest ancestor; the file alone when none)."""
        found = self._found(loc)
        if found is None:
            return str(self.path)
        return f"{self.path}:{self.lines[found]}:{self.columns.get(found, 1)}"

    def where(self, loc: Sequence[str | int]) -> str:
        """`file:line` for a location in this document (the file alone when nothing matches)."""
        line = self.line_of(loc)
        return f"{self.path}:{line}" if line else str(self.path)


Twice = list[tuple[Loc, str]]
"""Keys given twice in one mapping: each one's location, and where both are, in words."""


def _record_lines(
    node: yaml.Node,
    loc: Loc,
    document: YamlDocument,
    twice: Twice | None,
) -> None:
    """Every key's and item's line and column into `document`; a key given twice in one mapping
    (which PyYAML would silently let the last one win) is a GraderError naming both lines, or,
    where `twice` collects them, one of its entries."""
    if isinstance(node, yaml.MappingNode):
        seen: dict[tuple[str, str], int] = {}
        for key_node, value_node in node.value:
            if isinstance(key_node, yaml.ScalarNode):
                line = key_node.start_mark.line + 1
                column = key_node.start_mark.column + 1
                child = (*loc, key_node.value)
                first = seen.setdefault((key_node.tag, key_node.value), line)
                if first != line:
                    said = f"{document.path}:{line}:{column}: key {_shown(key_node.value)} given "
                    said += f"twice (first on line {first}): keep one"
                    if twice is None:
                        raise GraderError(said)
                    twice.append((child, said))
                    continue
                document.lines[child] = line
                document.columns[child] = column
                _record_lines(value_node, child, document, twice)
    elif isinstance(node, yaml.SequenceNode):
        for index, item in enumerate(node.value):
            child = (*loc, index)
            document.lines[child] = item.start_mark.line + 1
            document.columns[child] = item.start_mark.column + 1
            _record_lines(item, child, document, twice)


def _shown(text: str) -> str:
    """A key as a message shows it: quoted, escaped, and not too long."""
    return repr(text if len(text) <= 60 else text[:60] + "...")


MAX_NUMBER_CHARS = 100
_NUMBER_LIKE = re.compile(r"[-+0-9_:.eExXoObBa-fA-F]+")


class _BoundedLoader(yaml.SafeLoader):
    """PyYAML's safe loader, refusing anchors, aliases and nesting deeper than `max_depth`
    as it composes, before any recursion could run out of stack."""

    def __init__(self, text: str, path: Path, max_depth: int, aliases: bool) -> None:
        super().__init__(text)
        self.path = path
        self.max_depth = max_depth
        self.aliases = aliases
        self.depth = 0

    def compose_node(self, parent: yaml.Node | None, index: int) -> yaml.Node | None:
        event: yaml.Event = self.peek_event()  # type: ignore[no-untyped-call]
        line = event.start_mark.line + 1 if event.start_mark else 0
        anchored = isinstance(event, yaml.AliasEvent) or getattr(event, "anchor", None) is not None
        if anchored and not self.aliases:
            raise GraderError(f"{self.path}:{line}: {ALIASES}")
        if isinstance(event, yaml.ScalarEvent) and event.style is None:
            value = event.value
            if len(value) > MAX_NUMBER_CHARS and _NUMBER_LIKE.fullmatch(value):
                # YAML 1.1 reads 1:2:3... as a number in base 60, in time quadratic in its length
                raise GraderError(
                    f"{self.path}:{line}: a number of {len(value):,} characters: the grader "
                    f"reads numbers of at most {MAX_NUMBER_CHARS}"
                )
        if not isinstance(event, (yaml.SequenceStartEvent, yaml.MappingStartEvent)):
            return super().compose_node(parent, index)
        self.depth += 1
        if self.depth > self.max_depth:
            raise GraderError(
                f"{self.path}:{line}: nested over {self.max_depth} levels deep "
                "(lists or mappings inside each other): the grader reads no deeper"
            )
        try:
            return super().compose_node(parent, index)
        finally:
            self.depth -= 1


# YAML 1.2 reads 5e3, 5.05e3 and 1E-3 as numbers; PyYAML's YAML 1.1 rule needs a dot and a signed
# exponent (5.0e+3), and a figure such as `gflops: 5e3` would be text, "not a number" to its student
_BoundedLoader.add_implicit_resolver(
    "tag:yaml.org,2002:float",
    re.compile(r"^[-+]?(?:[0-9][0-9_]*(?:\.[0-9_]*)?|\.[0-9_]+)[eE][-+]?[0-9]+$"),
    list("-+.0123456789"),
)


MAX_EXPANDED_VALUES = 100_000
"""Where aliases are allowed: the most values the document may stand for once they are expanded
(a few lines of nested aliases can stand for billions)."""


def _expanded_size(root: yaml.Node, path: Path) -> int:
    """How many values `root` stands for with every alias expanded, counted without expanding
    (each node once); GraderError past MAX_EXPANDED_VALUES or for an alias inside itself."""
    sizes: dict[int, int] = {}
    pending: set[int] = set()

    def size(node: yaml.Node) -> int:
        key = id(node)
        if key in sizes:
            return sizes[key]
        if key in pending:
            line = node.start_mark.line + 1
            raise GraderError(f"{path}:{line}: an alias refers to the value it is inside")
        pending.add(key)
        children: list[yaml.Node] = []
        if isinstance(node, yaml.MappingNode):
            children = [part for pair in node.value for part in pair]
        elif isinstance(node, yaml.SequenceNode):
            children = list(node.value)
        total = 1 + sum(size(child) for child in children)
        pending.discard(key)
        if total > MAX_EXPANDED_VALUES:
            raise GraderError(
                f"{path}: its aliases (*name) stand for over {MAX_EXPANDED_VALUES:,} values: "
                "write each value out"
            )
        sizes[key] = total
        return total

    return size(root)


def _compose_and_construct(
    text: str, path: Path, max_depth: int, aliases: bool
) -> tuple[yaml.Node | None, Any]:
    """The document's node graph (for line numbers) and its data, from one parse."""
    loader = _BoundedLoader(text, path, max_depth, aliases)
    try:
        node = loader.get_single_node()
        if node is not None and aliases:
            _expanded_size(node, path)
        return node, (loader.construct_document(node) if node is not None else None)
    finally:
        loader.dispose()


def read_yaml(
    path: Path,
    *,
    limit: int = MAX_YAML_BYTES,
    max_depth: int = MAX_YAML_DEPTH,
    follow_links: bool = True,
    aliases: bool = False,
    twice: Twice | None = None,
) -> YamlDocument:
    """Parse `path`. A missing file, a file that is not a regular one (or a link, unless
    `follow_links`), more than `limit` bytes, bad encoding, bad syntax, nesting deeper than
    `max_depth`, an anchor or alias, or a key given twice is a one-line GraderError naming the
    file and, where there is one, the line. With `aliases`, anchors and aliases are allowed (files
    written by tools that use them), as long as the document stands for at most
    MAX_EXPANDED_VALUES values once they are expanded. Where `twice` is given, keys given twice
    are added to it instead (the last one's value is in the data)."""
    try:
        raw = read_bounded(path, limit, follow_links=follow_links)
    except FileNotFoundError:
        raise GraderError(f"{path}: file not found") from None
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        line = raw[: exc.start].count(b"\n") + 1
        raise GraderError(f"{path}:{line}: not UTF-8 text (byte {exc.start})") from None
    try:
        node, data = _compose_and_construct(text, path, max_depth, aliases)
    except yaml.MarkedYAMLError as exc:
        mark, opened = exc.problem_mark, exc.context_mark
        line_no = f":{mark.line + 1}:{mark.column + 1}" if mark is not None else ""
        problem = exc.problem or exc.context or type(exc).__name__
        if exc.problem and exc.context and mark and opened and opened.line != mark.line:
            # where the parser noticed is not always where the mistake is: say what it was in
            # ('while parsing a flow sequence') and where that began
            problem += f" ({exc.context.removeprefix('while ')} that began at line "
            problem += f"{opened.line + 1}, column {opened.column + 1})"
        raise GraderError(f"{path}{line_no}: not valid YAML: {problem}") from None
    except yaml.reader.ReaderError as exc:
        number = text.count("\n", 0, exc.position) + 1
        raise GraderError(
            f"{path}:{number}: not valid YAML: character {exc.character!r} is not allowed"
        ) from None
    except yaml.YAMLError as exc:
        first = str(exc).strip().splitlines()[0] if str(exc).strip() else type(exc).__name__
        raise GraderError(f"{path}: not valid YAML: {first}") from None
    except (ValueError, OverflowError) as exc:  # a value YAML names but Python cannot hold
        first = str(exc).strip().splitlines()[0] if str(exc).strip() else type(exc).__name__
        raise GraderError(f"{path}: a value the grader cannot read: {first}") from None
    document = YamlDocument(path=path, data=data)
    if node is not None:
        _record_lines(node, (), document, twice)
    return document
