"""Split a huge file into groups of top-level statements that can be analysed apart.

libcst needs about 600 bytes of memory per byte of source, and even CPython's
``ast`` about 150: a 5 MB file of 10^5 reads does not fit in either whole. Most
of such a file is statements that have nothing to do with each other, so the
file is cut, without parsing it whole, into *units* (top-level statements, those
sharing a line kept together), and the units are grouped so that each group can
be analysed on its own:

- *Context* units (imports; constants made of literals, names and operators,
  bound to plain names; ``if``/``try`` blocks of only those) that use no name
  another kind of unit binds hold no read and go with every group.
- Every other unit goes with each unit that uses a name it binds, or binds a name
  it uses: module-level names, def and class names, attributes stored anywhere.
  A use is any identifier in the unit's text, strings and comments included.

The analysis of a read depends on other statements only through names (what
they bind, what tests a stored value), so it is the same in its group as in
the whole file; ``scanner.run.work`` checks the rest (the budget for following
stored reads is shared by the file) and analyses the whole file when in doubt.

The cut is found without a tokenizer: a line that starts with a name or ``@`` in
its first column (and is no ``else``, ``elif``, ``except`` or ``finally``) may
start a statement. A piece of lines from one such start to another is parsed
with ``ast``; it parses only if the cut before it is real (a piece that ends in
an open bracket, string or block does not parse), and then the cut after it is
real too, by the same argument. A piece that does not parse grows to the next
cut; a file that never parses is analysed whole, which reports the error.
"""

from __future__ import annotations

import ast
import re
from collections.abc import Sequence
from dataclasses import dataclass

from scanner.source.ast_walk import walk
from scanner.source.narrow import _CONSTANT_NODES, _span
from scanner.source.shapes import Spot, Tokens, own_tokens, read_string
from scanner.source.skeletons import Model, apply, learn, skeleton

SPLIT_BYTES = 1024 * 1024  # files at least this large are analysed in groups
MANY_READS = 1000  # and files that name the environment this often, whatever their size
CHUNK_LINES = 4000  # lines of units per group (a larger component stays whole)
MAX_SHARED_LINES = 4000  # more lines of context than this, repeated in each group: no cut
PIECE_LINES = 2000  # lines parsed with ``ast`` at once to find the units
_START = re.compile(r"[^\W\d]|@")
_CONTINUATIONS = frozenset({"else", "elif", "except", "finally"})
_IDENTIFIER = re.compile(r"[^\W\d]\w*")
_FIRST_WORD = re.compile(r"\w+")


def in_groups(data: bytes) -> bool:
    """Whether a file is analysed in groups: it is huge (SPLIT_BYTES), or it names the
    environment so often (MANY_READS) that its repeated statements are worth sharing
    an analysis (``scanner.run.templates``). No file of torch or Primus names it 250
    times."""
    if len(data) >= SPLIT_BYTES:
        return True
    return data.count(b"environ") + data.count(b"getenv") >= MANY_READS


@dataclass(frozen=True, slots=True)
class Chunk:
    """The lines of one group and of the context units, in file order."""

    text: str
    lines: tuple[int, ...]  # the file's line number of each line of ``text``
    context: frozenset[int]  # the lines of the context units (they hold no read)


@dataclass(frozen=True, slots=True, kw_only=True)
class Unit:
    """A top-level statement (or those sharing a line)."""

    start: int  # first line, 1-based, decorators included
    end: int  # last line
    bound: frozenset[str]
    context: bool  # a candidate for the context (demoted if it uses what others bind)
    tokens: Tokens  # what a shape may rename (``scanner.source.shapes``)


@dataclass(frozen=True, slots=True)
class Plan:
    """The units of a file, its components (units that share names, in file order) and
    the context units that go with every group."""

    units: tuple[Unit, ...]
    components: tuple[tuple[int, ...], ...]
    shared: tuple[int, ...]
    context: frozenset[int]  # the lines of the context units

    def lines_of(self, members: Sequence[int]) -> tuple[int, ...]:
        """The file's lines of some units, in order."""
        units = self.units
        return tuple(n for at in members for n in range(units[at].start, units[at].end + 1))


def split(lines: Sequence[str], chunk_lines: int | None = None) -> list[Chunk] | None:
    """The groups of ``lines`` (a file's lines, endings kept) of about ``chunk_lines``
    lines (CHUNK_LINES), or None when the file does not cut into more than one group (or
    does not parse)."""
    found = plan(lines)
    if found is None:
        return None
    packed = pack(lines, found, found.components, chunk_lines)
    return packed if len(packed) >= 2 else None


def plan(lines: Sequence[str]) -> Plan | None:
    """The units and components of ``lines``; None when the file has fewer than two
    components, does not parse, or has more context than a group could repeat."""
    units = _units(lines)
    if units is None or len(units) < 2:
        return None
    binders: dict[str, list[int]] = {}
    for at, unit in enumerate(units):
        for name in unit.bound:
            binders.setdefault(name, []).append(at)
    used = [_used(lines, unit) for unit in units]
    context = _context(units, used, binders)
    parent = list(range(len(units)))

    def root(at: int) -> int:
        while parent[at] != at:
            parent[at] = parent[parent[at]]
            at = parent[at]
        return at

    for at, names in enumerate(used):
        if context[at]:
            continue
        for name in names:
            for other in binders.get(name, ()):
                if not context[other]:
                    parent[root(other)] = root(at)
    groups: dict[int, list[int]] = {}
    for at in range(len(units)):
        if not context[at]:
            groups.setdefault(root(at), []).append(at)
    shared = [at for at in range(len(units)) if context[at]]
    shared_size = sum(units[at].end - units[at].start + 1 for at in shared)
    if shared_size > MAX_SHARED_LINES or len(groups) < 2:
        return None  # every group would repeat more than a group holds
    context_lines = frozenset(n for at in shared for n in range(units[at].start, units[at].end + 1))
    components = sorted((tuple(members) for members in groups.values()), key=lambda m: m[0])
    return Plan(tuple(units), tuple(components), tuple(shared), context_lines)


def pack(
    lines: Sequence[str],
    plan: Plan,
    components: Sequence[Sequence[int]],
    chunk_lines: int | None = None,
) -> list[Chunk]:
    """``components`` (in file order) filled into groups of about ``chunk_lines`` lines
    (CHUNK_LINES), each with the context units."""
    chunk_lines = CHUNK_LINES if chunk_lines is None else chunk_lines
    units = plan.units
    packed: list[Chunk] = []
    current: list[int] = []
    size = 0
    for members in components:
        count = sum(units[at].end - units[at].start + 1 for at in members)
        if current and size + count > chunk_lines:
            packed.append(_chunk(lines, plan, current))
            current, size = [], 0
        current += members
        size += count
    if current:
        packed.append(_chunk(lines, plan, current))
    return packed


def _units(lines: Sequence[str]) -> list[Unit] | None:
    """The top-level statements of the file, parsed a piece at a time; those that share
    a line are one unit. A block of lines whose skeleton was parsed before is not
    parsed again (``scanner.source.skeletons``)."""
    starts = [0, *(at for at in range(1, len(lines)) if _may_start(lines[at])), len(lines)]
    units: list[Unit] = []
    known: dict[str, Model] = {}
    begin = 0  # index into starts: lines[starts[begin]] starts the next piece
    while starts[begin] < len(lines):
        first = starts[begin]
        block = lines[first : starts[begin + 1]]
        shape = skeleton(block)
        model = known.get(shape.text) if shape is not None else None
        if shape is not None and model is not None:
            for start, end, context, bound, tokens in apply(model, shape, block, first + 1):
                units.append(
                    Unit(start=start, end=end, bound=bound, context=context, tokens=tokens)
                )
            begin += 1
            continue
        end = _next(starts, begin, first + PIECE_LINES)
        while True:
            tree = _parse(lines[first : starts[end]])
            if tree is not None:
                break
            if starts[end] >= len(lines):
                return None
            end = _next(starts, end, first + 2 * (starts[end] - first))
        parsed: list[tuple[Unit, Facts | None]] = []
        for statement in tree.body:
            low, high = _span(statement)
            facts = _facts(statement, first, lines)
            unit = Unit(
                start=low + first,
                end=high + first,
                bound=facts.bound,
                context=_shared(statement),
                tokens=facts.tokens,
            )
            learned: Facts | None = facts
            if parsed and unit.start <= parsed[-1][0].end:  # `a = 1; b = 2` on one line
                last = parsed.pop()[0]
                unit = Unit(
                    start=last.start,
                    end=unit.end,
                    bound=last.bound | unit.bound,
                    context=last.context and unit.context,
                    tokens=last.tokens + unit.tokens,
                )
                learned = None  # two statements: not learned
            parsed.append((unit, learned))
        units += (unit for unit, _ in parsed)
        _learn(lines, starts, begin, end, parsed, known)
        begin = end
    return units


def _learn(
    lines: Sequence[str],
    starts: Sequence[int],
    begin: int,
    end: int,
    parsed: Sequence[tuple[Unit, Facts | None]],
    known: dict[str, Model],
) -> None:
    """Learn the model of each block of the piece ``starts[begin:end]`` that holds one
    unit of ``parsed`` exactly (from one possible start to the next)."""
    at = begin
    for number, (unit, facts) in enumerate(parsed):
        while starts[at] < unit.start - 1:
            at += 1
        if starts[at] != unit.start - 1 or facts is None or facts.spots is None:
            continue  # the unit does not start a block, or its names are not all written
        following = parsed[number + 1][0].start - 1 if number + 1 < len(parsed) else starts[end]
        if starts[at + 1] != following:
            continue  # the block would hold more than the unit
        block = lines[starts[at] : starts[at + 1]]
        shape = skeleton(block)
        if shape is None or shape.text in known:
            continue
        model = learn(
            shape, unit.start, unit.end, unit.context, facts.spots, facts.renamed, unit.tokens
        )
        if model is not None:
            known[shape.text] = model


def _may_start(line: str) -> bool:
    if not _START.match(line):
        return False
    word = _FIRST_WORD.match(line)
    return word is None or word.group() not in _CONTINUATIONS


def _next(starts: Sequence[int], at: int, line: int) -> int:
    """The index of the first start at or after ``line``, and after ``at``."""
    at += 1
    while at < len(starts) - 1 and starts[at] < line:
        at += 1
    return at


def _parse(piece: Sequence[str]) -> ast.Module | None:
    try:
        return ast.parse("".join(piece))
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return None


def _used(lines: Sequence[str], unit: Unit) -> frozenset[str]:
    return frozenset(_IDENTIFIER.findall("".join(lines[unit.start - 1 : unit.end])))


def _context(
    units: Sequence[Unit], used: Sequence[frozenset[str]], binders: dict[str, list[int]]
) -> list[bool]:
    """Which units go with every group: candidates that use no name a unit outside the
    context binds (demoting one may demote others)."""
    context = [unit.context for unit in units]
    changed = True
    while changed:
        changed = False
        for at, names in enumerate(used):
            if context[at] and any(
                not context[other] for name in names for other in binders.get(name, ())
            ):
                context[at] = False
                changed = True
    return context


def _chunk(lines: Sequence[str], plan: Plan, members: Sequence[int]) -> Chunk:
    numbers = plan.lines_of(sorted([*plan.shared, *members]))
    parts = [lines[n - 1] for n in numbers]
    if parts and not parts[-1].endswith(("\n", "\r")):
        parts[-1] += "\n"
    return Chunk("".join(parts), numbers, plan.context)


def _shared(statement: ast.stmt) -> bool:
    """An import, a constant bound to plain names, or a block of only those: a candidate
    for the context."""
    if isinstance(statement, ast.Import | ast.ImportFrom | ast.Pass):
        return True
    if isinstance(statement, ast.Assign | ast.AnnAssign):
        targets = statement.targets if isinstance(statement, ast.Assign) else [statement.target]
        value = statement.value
        return (
            isinstance(value, _CONSTANT_NODES)  # before walking it (a call or a test is not)
            and all(isinstance(t, ast.Name) for t in targets)
            and all(isinstance(node, _CONSTANT_NODES) for node in walk(value))
        )
    if isinstance(statement, ast.If | ast.Try):
        if isinstance(statement, ast.If) and not all(
            isinstance(node, _CONSTANT_NODES) for node in walk(statement.test)
        ):
            return False
        handlers = getattr(statement, "handlers", [])
        if any(h.type is not None and not _plain(h.type) for h in handlers):
            return False
        inner = [*statement.body, *statement.orelse, *getattr(statement, "finalbody", [])]
        inner += [s for h in handlers for s in h.body]
        return all(_shared(s) for s in inner)
    return False


def _plain(node: ast.expr) -> bool:
    return all(isinstance(n, ast.Name | ast.Attribute | ast.Tuple | ast.Load) for n in walk(node))


_NAMING = frozenset({ast.Call, ast.Subscript, ast.Compare})  # reads a string may name
_FIELDS: dict[type, tuple[str, ...]] = {}
_LEAF_FIELDS = frozenset({"ctx", "op", "ops"})  # contexts and operators: nothing in them
_LEAVES = (ast.Constant, ast.Load)


def _child_fields(kind: type) -> tuple[str, ...]:
    """The fields of a node type that may hold nodes (not its load or store context)."""
    found = _FIELDS.get(kind)
    if found is None:
        fields: tuple[str, ...] = getattr(kind, "_fields", ())
        found = _FIELDS[kind] = tuple(f for f in fields if f not in _LEAF_FIELDS)
    return found


@dataclass(frozen=True, slots=True)
class Facts:
    """What one walk of a top-level statement finds."""

    bound: frozenset[str]  # what it binds that other statements could use
    spots: tuple[Spot, ...] | None  # where (None: not all are names written)
    renamed: tuple[Spot, ...] | None  # where the names a shape may rename are bound
    tokens: Tokens


def _facts(statement: ast.stmt, offset: int, lines: Sequence[str]) -> Facts:
    """In one walk of a top-level statement: what it binds that other statements could
    use (names bound at module level, ``global`` ones inside functions too; def and
    class names outside functions; every attribute it stores or deletes), and its
    tokens (``scanner.source.shapes``)."""
    bound: set[str] = set()
    spots: list[Spot] | None = []  # where each bound name is written
    names: list[tuple[int, int, int, str]] = []
    strings: list[tuple[int, int, int, str, int, int]] = []
    own, renamed = own_tokens(statement, offset, lines)
    pending: list[tuple[ast.AST, bool]] = [(statement, False)]
    while pending:
        node, local = pending.pop()
        kind = type(node)
        if kind is ast.Name:
            assert isinstance(node, ast.Name)
            single = node.end_lineno == node.lineno and node.end_col_offset is not None
            where = (node.lineno + offset, node.col_offset, node.end_col_offset or 0)
            if single:
                names.append((*where, node.id))
            if not local and not isinstance(node.ctx, ast.Load):
                bound.add(node.id)
                if spots is not None and single:
                    spots.append(where)
                else:
                    spots = None
            continue
        if kind in _NAMING:
            read_string(node, offset, lines, strings)
        inner = local
        placed = True
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
            if not local:
                bound.add(node.name)
                placed = node is statement and node.name in own.renamable
                if placed and spots is not None:
                    spots.append(own.names[0][:3])
            inner = local or not isinstance(node, ast.ClassDef)
        elif isinstance(node, ast.Lambda):
            inner = True
        elif isinstance(node, ast.Global | ast.Nonlocal):
            bound.update(node.names)
            placed = False
        elif isinstance(node, ast.Attribute) and not isinstance(node.ctx, ast.Load):
            bound.add(node.attr)
            placed = False
        elif isinstance(node, ast.Import | ast.ImportFrom):
            if not local:
                bound.update((a.asname or a.name).split(".", 1)[0] for a in node.names)
                spots = None
            continue
        if not placed:
            spots = None
        for field in _child_fields(kind):
            value = getattr(node, field, None)
            if type(value) is list:
                pending.extend(
                    (child, inner)
                    for child in value
                    if isinstance(child, ast.AST) and not isinstance(child, _LEAVES)
                )
            elif isinstance(value, ast.AST) and not isinstance(value, _LEAVES):
                pending.append((value, inner))
    tokens = Tokens(own.renamable, (*own.names, *names), tuple(strings))
    return Facts(
        frozenset(bound),
        tuple(spots) if spots is not None else None,
        renamed,
        tokens,
    )
