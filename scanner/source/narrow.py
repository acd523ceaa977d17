"""Parse less: keep only the top-level statements the analysis needs.

libcst is an order of magnitude slower than CPython's own parser, and most of a
file that reads one variable is unrelated code. The standard library's ``ast``
finds the top-level statements (and, inside classes, the body statements) that
mention a word of interest, plus the imports and constants that those use;
every other line is replaced by an empty line, and so is every comment-only
line between them. Line and column numbers in the narrowed text are those of
the whole file, so libcst positions need no translation.
"""

from __future__ import annotations

import ast
import hashlib
import io
import re
from bisect import bisect_right
from collections import Counter
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from itertools import accumulate

from scanner.accessors import ENVIRON, READ_CALLS, WRITE_CALLS
from scanner.source.anchors import Anchors, build_anchors
from scanner.source.ast_walk import children, walk
from scanner.source.kept_classes import field_loop_classes, set_name_classes, settings_classes

# A module constant worth keeping: a short expression of literals, names and operators.
_CONSTANT_NODES = (
    ast.Constant,
    ast.JoinedStr,
    ast.FormattedValue,
    ast.Tuple,
    ast.List,
    ast.Set,
    ast.Dict,
    ast.BinOp,
    ast.UnaryOp,
    ast.Name,
    ast.Attribute,
    ast.Load,
    ast.operator,
    ast.unaryop,
)
_CONSTANT_LINES = 20
CONSUMER_LINES = 300  # the most lines kept, per file, for statements that test stored reads
_IDENTIFIER = re.compile(r"[^\W\d]\w*")


@dataclass(frozen=True, slots=True, kw_only=True)
class Narrowed:
    """The text to hand to libcst, and what the dropped statements bound."""

    text: str
    anchors: Anchors  # positions of the kept calls, subscripts, comparisons and defs
    functions: frozenset[str]  # module-level def and class names, dropped ones included
    ambiguous: frozenset[str]  # names bound more than once at module level
    # Names holding a read for later whose uses were too much code to keep.
    unfollowed: frozenset[str] = frozenset()
    # For each stored name followed: the lines of the statements naming it, and of those
    # kept for testing it (what it took of the file's CONSUMER_LINES budget).
    consumed: tuple[tuple[int, int], ...] = ()

    def digest(self) -> str:
        """A hash of everything the analysis of the narrowed text depends on (the anchors
        follow from the kept lines)."""
        digest = hashlib.blake2b(self.text.encode("utf-8", "surrogatepass"), digest_size=20)
        for names in (self.functions, self.ambiguous, self.unfollowed):
            digest.update(b"\0" + "\n".join(sorted(names)).encode())
        return digest.hexdigest()


def narrow(text: str, words: Sequence[str]) -> Narrowed | None:
    """``text`` with irrelevant statements blanked, or None when ``ast`` cannot parse it."""
    source = Source.parse(text)
    return source.narrow(words) if source is not None else None


@dataclass(frozen=True, slots=True, kw_only=True)
class Source:
    """A file's text parsed once by ``ast``, to narrow for any words (a file's own
    wrappers widen its narrowing round by round)."""

    text: str
    tree: ast.Module
    lines: tuple[str, ...]
    starts: tuple[int, ...]  # the offset in ``text`` where each line starts
    functions: frozenset[str]  # module-level def and class names
    ambiguous: frozenset[str]  # names bound more than once at module level

    @classmethod
    def parse(cls, text: str) -> Source | None:
        """The parsed text, or None when ``ast`` cannot parse it."""
        try:
            tree = ast.parse(text)
        except (SyntaxError, ValueError, MemoryError, RecursionError):
            # CPython's parser gives up on deep nesting with MemoryError (a bracket left
            # open around it) or RecursionError: the full parse then reports the file.
            return None
        lines = tuple(text_lines(text))
        functions = frozenset(
            s.name
            for s in tree.body
            if isinstance(s, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef)
        )
        counts: Counter[str] = Counter()
        for statement in tree.body:
            counts.update(_bound(statement))
        ambiguous = frozenset(name for name, count in counts.items() if count > 1)
        starts = tuple(accumulate((len(line) for line in lines), initial=0))
        return cls(
            text=text,
            tree=tree,
            lines=lines,
            starts=starts,
            functions=functions,
            ambiguous=ambiguous,
        )

    def _lines_of(self, word: str) -> list[int]:
        """The lines ``word`` occurs on as an identifier, in order."""
        return sorted({bisect_right(self.starts, at) for at in word_offsets(self.text, [word])})

    def _mentions(self, words: Sequence[str]) -> list[int]:
        """``mentions[n]``: how many of lines 1..n hold a word; a span mentions one if the
        count rises."""
        marked = [0] * (len(self.lines) + 1)
        for offset in word_offsets(self.text, words):
            marked[bisect_right(self.starts, offset)] = 1
        return list(accumulate(marked))

    def narrow(self, words: Sequence[str]) -> Narrowed:
        """The text with the statements that do not matter for ``words`` blanked."""
        lines = self.lines
        named = [
            *set_name_classes(self.tree.body),
            *settings_classes(self.tree.body),
            *(field_loop_classes(self.tree.body) if "fields(" in self.text else ()),
        ]
        words = (*words, *_aliases(self.tree.body, words), *(c.name for c in named))
        mentions = self._mentions(words)
        # The file's likely wrappers: their calls are kept from the start, so that the
        # analysis finding them needs no second, wider parse.
        readers = [n for n in _readers(self.tree.body, mentions) if n not in words]
        if readers:
            words = (*words, *readers)
            mentions = self._mentions(words)
        # A read stored for later (`_X = os.environ.get(...)`, `self.x = ...`) is judged
        # where the stored name is used: keep those uses too.
        stored = [n for n in _stored(self.tree.body, mentions) if n not in words]
        unfollowed: frozenset[str] = frozenset()
        consumed: list[tuple[int, int]] = []
        if stored:
            consumers, unfollowed = _consumers(self.tree.body, stored, self._lines_of, consumed)
            if consumers:
                mentions = _with_spans(mentions, consumers)
        keep = [False] * (len(lines) + 2)
        covered = [False] * (len(lines) + 2)
        bindings: list[ast.stmt] = []
        descriptors: list[ast.ClassDef] = []
        _select(self.tree.body, mentions, keep, covered, bindings, descriptors, lines)
        _keep_bases(self.tree.body, descriptors, keep)
        for whole in named:
            _keep(keep, *_span(whole))
        _keep_converters(self.tree.body, lines, keep)
        _keep_bindings(bindings, lines, keep)
        _keep_passed_tables(self.tree.body, keep)
        parts = [
            line if keep[number] or not (covered[number] or _idle(line)) else _ending(line)
            for number, line in enumerate(lines, start=1)
        ]
        while parts and not parts[-1].strip():
            parts.pop()  # blanked lines at the end hold no position worth keeping
        anchors = build_anchors(self.tree, lines, keep.__getitem__)
        return Narrowed(
            text="".join(parts),
            anchors=anchors,
            functions=self.functions,
            ambiguous=self.ambiguous,
            unfollowed=unfollowed,
            consumed=tuple(consumed),
        )


def _readers(body: Sequence[ast.stmt], mentions: list[int]) -> list[str]:
    """The functions, at any depth, whose code mentions a word and reads by a parameter
    (``get(name)``, ``environ[name]``, ``f"X_{name}"``): what may read the variable a
    caller names."""
    found: list[str] = []
    for statement in body:
        start, end = _span(statement)
        if mentions[end] <= mentions[start - 1]:
            continue
        if isinstance(statement, ast.FunctionDef | ast.AsyncFunctionDef):
            given = statement.args
            params = {a.arg for a in (*given.posonlyargs, *given.args, *given.kwonlyargs)}
            if _reads_by(statement, params - {"self", "cls"}):
                found.append(statement.name)
        for inner in _bodies(statement):
            found += _readers(inner, mentions)
    return found


def _reads_by(function: ast.FunctionDef | ast.AsyncFunctionDef, params: set[str]) -> bool:
    """Whether ``function`` reads the environment by one of ``params`` (``get(name)``,
    ``getenv(f"X_{name}")``, ``environ[name]``)."""
    if not params:
        return False
    for node in walk(function):
        if isinstance(node, ast.Call) and node.args and _reading(node.func, _READ_METHODS):
            first: ast.expr = node.args[0]
        elif isinstance(node, ast.Subscript) and _reading(node.value, ()):
            first = node.slice
        else:
            continue
        if isinstance(first, ast.JoinedStr):
            parts = [v.value for v in first.values if isinstance(v, ast.FormattedValue)]
        else:
            parts = [first]
        if any(isinstance(part, ast.Name) and part.id in params for part in parts):
            return True
    return False


# The methods of ``os.environ`` that take a variable's name first (get, pop, setdefault).
_READ_METHODS = tuple(
    sorted(
        call.rsplit(".", 1)[1]
        for call in (*READ_CALLS, *WRITE_CALLS)
        if call.rsplit(".", 1)[0] == ENVIRON
    )
)


def _reading(callee: ast.expr, methods: Sequence[str]) -> bool:
    """Whether ``callee`` names the environment or a read of it (``os.environ.get``,
    ``getenv``, ``env.get``): a name with ``env`` in it, or one of ``methods`` on one."""
    name = callee.attr if isinstance(callee, ast.Attribute) else getattr(callee, "id", "")
    if "env" in name.lower():
        return True
    return name in methods and isinstance(callee, ast.Attribute) and _reading(callee.value, ())


def _bodies(statement: ast.stmt) -> Iterator[Sequence[ast.stmt]]:
    """The statement lists directly inside a compound statement."""
    for field in ("body", "orelse", "finalbody"):
        inner = getattr(statement, field, None)
        if isinstance(inner, list) and inner and isinstance(inner[0], ast.stmt):
            yield inner
    for handler in getattr(statement, "handlers", ()):
        yield handler.body
    for case in getattr(statement, "cases", ()):
        yield case.body


def _stored(body: Sequence[ast.stmt], mentions: list[int]) -> list[str]:
    """Names that hold a value computed by a statement mentioning a word, but not a
    condition already (``_X = os.getenv(N)``, not ``DEBUG = os.getenv(N) is not None``):
    module-level and class-level variables, and attributes of ``self`` set in methods."""
    found: list[str] = []

    def mentioned(node: ast.stmt) -> bool:
        start, end = _span(node)
        return mentions[end] > mentions[start - 1] and not is_condition(
            getattr(node, "value", None)
        )

    for statement in body:
        if not mentioned(statement):
            continue
        if isinstance(statement, ast.Assign | ast.AnnAssign):
            found.extend(_target_names(statement))
        elif isinstance(statement, ast.ClassDef):
            for inner in statement.body:
                if not mentioned(inner):
                    continue
                if isinstance(inner, ast.Assign | ast.AnnAssign):
                    found.extend(_target_names(inner))
                elif isinstance(inner, ast.FunctionDef | ast.AsyncFunctionDef):
                    found.extend(
                        node.targets[0].attr
                        for node in walk(inner)
                        if isinstance(node, ast.Assign)
                        and len(node.targets) == 1
                        and isinstance(node.targets[0], ast.Attribute)
                        and isinstance(node.targets[0].value, ast.Name)
                        and node.targets[0].value.id == "self"
                        and mentioned(node)
                    )
    return list(dict.fromkeys(found))


def _consumers(
    body: Sequence[ast.stmt],
    stored: Sequence[str],
    lines_of: Callable[[str], list[int]],
    consumed: list[tuple[int, int]],
) -> tuple[list[tuple[int, int]], frozenset[str]]:
    """The statements that test a stored name (``if _X != "0":``, ``_ON = _X in TRUE``),
    to keep beside the read; names whose testing statements would add more than
    CONSUMER_LINES lines in all are not followed (and said so). What each followed name
    took goes to ``consumed``."""
    spans: list[tuple[int, int]] = []
    unfollowed: set[str] = set()
    budget = CONSUMER_LINES
    tested: dict[int, set[str]] = {}
    statements = list(_statements_in(body))
    firsts = [_span(s)[0] for s in statements]
    for name in stored:
        candidates = _holding(statements, firsts, lines_of(name))
        held = sum(end - start + 1 for start, end in map(_span, candidates))
        if held > 4 * budget:
            unfollowed.add(name)  # used all over: too much code, whatever tests it
            continue
        for statement in candidates:
            if id(statement) not in tested:
                tested[id(statement)] = _tested_names(statement)
        found = [_span(s) for s in candidates if name in tested[id(s)]]
        size = sum(end - start + 1 for start, end in found)
        if size > budget:
            unfollowed.add(name)
            continue
        budget -= size
        consumed.append((held, size))
        spans.extend(found)
    return spans, frozenset(unfollowed)


def _statements_in(body: Sequence[ast.stmt]) -> Iterator[ast.stmt]:
    """Top-level statements and class-body statements (classes entered), in order."""
    for statement in body:
        if isinstance(statement, ast.ClassDef):
            yield from _statements_in(statement.body)
        else:
            yield statement


def _holding(
    statements: Sequence[ast.stmt], firsts: Sequence[int], lines: Sequence[int]
) -> list[ast.stmt]:
    """The statements (ordered, with their first lines ``firsts``) that span one of
    ``lines``."""
    found: dict[int, ast.stmt] = {}
    for line in lines:
        at = bisect_right(firsts, line) - 1
        if at >= 0 and line <= _span(statements[at])[1]:
            found[id(statements[at])] = statements[at]
    return list(found.values())


def _tested_names(statement: ast.stmt) -> set[str]:
    """The names (and attributes) ``statement`` decides something with: it compares
    them, branches on them, or combines them with ``and``/``or``/``not``."""
    found: set[str] = set()
    pending: list[tuple[ast.AST, bool]] = [(statement, False)]
    while pending:
        node, testing = pending.pop()
        if testing:
            if isinstance(node, ast.Name):
                found.add(node.id)
            elif isinstance(node, ast.Attribute):
                found.add(node.attr)
        if isinstance(node, ast.If | ast.While | ast.IfExp | ast.Assert):
            pending.append((node.test, True))
            pending.extend((c, testing) for c in children(node) if c is not node.test)
            continue
        if _table_lookup(node):
            assert isinstance(node, ast.Call)
            pending.append((node.args[0], True))
        inside = (
            testing
            or isinstance(node, ast.Compare | ast.BoolOp)
            or (isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.Not))
        )
        pending.extend((child, inside) for child in children(node))
    return found


def _table_lookup(node: ast.AST) -> bool:
    """``{"1": 3, "0": 0}.get(x, 8)``: a literal table that decides a value from ``x``."""
    return (
        isinstance(node, ast.Call)
        and isinstance(node.func, ast.Attribute)
        and node.func.attr == "get"
        and isinstance(node.func.value, ast.Dict)
        and bool(node.args)
    )


def _with_spans(mentions: list[int], spans: Sequence[tuple[int, int]]) -> list[int]:
    """``mentions`` with each span counted as mentioning a word (so it is kept)."""
    marked = [0] * len(mentions)
    for at in range(1, len(mentions)):
        marked[at] = mentions[at] - mentions[at - 1]
    for start, _ in spans:
        marked[start] = 1
    return list(accumulate(marked))


def is_condition(value: ast.AST | None) -> bool:
    """A comparison, ``and``/``or``, or ``not``: a value that is already a decision."""
    return isinstance(value, ast.Compare | ast.BoolOp) or (
        isinstance(value, ast.UnaryOp) and isinstance(value.op, ast.Not)
    )


def _target_names(statement: ast.Assign | ast.AnnAssign) -> list[str]:
    targets = statement.targets if isinstance(statement, ast.Assign) else [statement.target]
    return [t.id for t in targets if isinstance(t, ast.Name)]


def word_offsets(text: str, words: Sequence[str]) -> Iterator[int]:
    """Where each word occurs in ``text`` as a whole identifier (str.find runs at C speed)."""
    for word in set(words):
        at = text.find(word)
        while at >= 0:
            end = at + len(word)
            before = text[at - 1] if at else " "
            after = text[end] if end < len(text) else " "
            if not (_ident(before) or _ident(after)):
                yield at
            at = text.find(word, end)


def _ident(char: str) -> bool:
    return char.isalnum() or char == "_"


def _select(
    body: Sequence[ast.stmt],
    mentions: list[int],
    keep: list[bool],
    covered: list[bool],
    bindings: list[ast.stmt] | None,
    descriptors: list[ast.ClassDef],
    lines: Sequence[str],
) -> bool:
    """Keep the statements of ``body`` that mention a word; collect the imports and
    constants in ``bindings`` (kept only if the kept code names them), and in
    ``descriptors`` the classes that may keep a variable's name on ``self``."""
    kept_any = False
    for statement in body:
        start, end = _span(statement)
        covered[start : end + 1] = [True] * (end + 1 - start)
        mentioned = mentions[end] > mentions[start - 1]
        if mentioned and isinstance(statement, ast.ClassDef) and statement.body:
            # Keep the class header and the body statements that matter; class constants
            # if the code uses them; for a descriptor, its constructor (it keeps the name).
            header_end = _span(statement.body[0])[0] - 1
            if not _select(statement.body, mentions, keep, covered, bindings, descriptors, lines):
                header_end = end
            _keep(keep, start, max(header_end, start))
            if _reads_through_self(start, end, mentions, lines):
                _keep_constructor(statement, keep)
                descriptors.append(statement)
            kept_any = True
        elif mentioned:
            _keep(keep, start, end)
            kept_any = True
        elif bindings is not None and _structural(statement):
            bindings.append(statement)
    return kept_any


def _reads_through_self(start: int, end: int, mentions: list[int], lines: Sequence[str]) -> bool:
    """Whether a line of the span that mentions a word also names ``self.`` or ``cls.``:
    a read by a name kept on the object (``getenv(self.key)``)."""
    return any(
        mentions[n] > mentions[n - 1] and ("self." in lines[n - 1] or "cls." in lines[n - 1])
        for n in range(start, end + 1)
    )


def _keep_constructor(statement: ast.ClassDef, keep: list[bool]) -> bool:
    """Keep a class's ``__init__``; whether it has one."""
    for inner in statement.body:
        if isinstance(inner, ast.FunctionDef) and inner.name == "__init__":
            _keep(keep, *_span(inner))
            return True
    return False


def _keep_bases(
    body: Sequence[ast.stmt], descriptors: Sequence[ast.ClassDef], keep: list[bool]
) -> None:
    """Keep the header and constructor of each module-level class that a descriptor
    derives from (its bases run in the constructor through ``super().__init__``)."""
    classes = {s.name: s for s in body if isinstance(s, ast.ClassDef)}
    pending = list(descriptors)
    done: set[str] = set()
    while pending:
        current = pending.pop()
        for base in current.bases:
            node = base.value if isinstance(base, ast.Subscript) else base
            name = node.id if isinstance(node, ast.Name) else None
            found = classes.get(name) if name is not None else None
            if found is None or found.name in done:
                continue
            done.add(found.name)
            start, _ = _span(found)
            header_end = _span(found.body[0])[0] - 1 if found.body else found.lineno
            _keep(keep, start, max(header_end, start))
            if not _keep_constructor(found, keep) and found.body:
                _keep(keep, *_span(found.body[0]))  # a body, so that the class still parses
            pending.append(found)


def _keep_bindings(bindings: list[ast.stmt], lines: Sequence[str], keep: list[bool]) -> None:
    """Keep the imports and constants whose names the kept code uses, and those that
    these use in turn (names are looked for as words: a mention in a string keeps one too)."""
    used = set(_IDENTIFIER.findall("".join(line for n, line in enumerate(lines, 1) if keep[n])))
    pending = [(statement, set(_bound(statement))) for statement in bindings]
    while True:
        needed = [item for item in pending if item[1] & used or _always_kept(item[0])]
        if not needed:
            return
        for statement, _ in needed:
            start, end = _span(statement)
            _keep(keep, start, end)
            used.update(_IDENTIFIER.findall("".join(lines[start - 1 : end])))
        chosen = {id(statement) for statement, _ in needed}
        pending = [item for item in pending if id(item[0]) not in chosen]


def _keep_passed_tables(body: Sequence[ast.stmt], keep: list[bool]) -> None:
    """Keep the module-level dict literals that a kept module-level call is passed by
    name, or a kept ``for`` loop goes over, however long (lmcache's
    ``create_config_class(config_definitions=_DEFS)``, a factory that reads a variable
    per key of the table, and ``for name in _DEFS: os.getenv(env_name_of(name))``)."""
    passed: set[str] = set()
    for statement in body:
        value = statement.value if isinstance(statement, ast.Assign | ast.Expr) else None
        if isinstance(value, ast.Call) and keep[statement.lineno]:
            arguments = [*value.args, *(k.value for k in value.keywords)]
            passed.update(a.id for a in arguments if isinstance(a, ast.Name))
        elif isinstance(statement, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef) and any(
            keep[statement.lineno : (statement.end_lineno or statement.lineno) + 1]
        ):
            passed.update(_looped_over(statement, keep))
    if not passed:
        return
    for statement in body:
        if isinstance(statement, ast.Assign | ast.AnnAssign) and isinstance(
            statement.value, ast.Dict
        ):
            targets = statement.targets if isinstance(statement, ast.Assign) else [statement.target]
            if any(isinstance(t, ast.Name) and t.id in passed for t in targets):
                _keep(keep, *_span(statement))


def _looped_over(definition: ast.stmt, keep: list[bool]) -> Iterator[str]:
    """The names that kept ``for`` loops in a definition go over: ``T``, ``T.keys()``,
    ``T.items()``, ``list(T)``."""
    for node in _nested(definition):
        if not isinstance(node, ast.For) or not keep[node.lineno]:
            continue
        over = node.iter
        if isinstance(over, ast.Call) and isinstance(over.func, ast.Name) and len(over.args) == 1:
            over = over.args[0]
        if isinstance(over, ast.Call) and isinstance(over.func, ast.Attribute) and not over.args:
            over = over.func.value
        if isinstance(over, ast.Name):
            yield over.id


def _keep_converters(body: Sequence[ast.stmt], lines: Sequence[str], keep: list[bool]) -> None:
    """Keep the small module-level functions that kept code calls (vllm's
    ``maybe_convert_bool(os.getenv(N))``, envs.py:360): the interpreter follows a value
    through them (see ``scanner.interpret.converters``)."""
    small = {
        s.name: s
        for s in body
        if isinstance(s, ast.FunctionDef) and is_converter(s) and not keep[s.lineno]
    }
    if not small:
        return
    kept = "".join(line for n, line in enumerate(lines, 1) if keep[n])
    for name in _CALLED.findall(kept):
        found = small.get(name)
        if found is not None:
            _keep(keep, *_span(found))


_CALLED = re.compile(r"([^\W\d]\w*)\s*\(")
CONVERTER_STATEMENTS = 6  # the most statements a converter's body holds, nested ones included
CONVERTER_LINES = 15


def is_converter(statement: ast.stmt) -> bool:
    """Whether ``statement`` defines a converter: a plain function of one or two parameters
    whose body is a few statements that define nothing, loop over nothing and yield nothing
    (``if value is None: return None; return bool(int(value))``)."""
    if not isinstance(statement, ast.FunctionDef) or statement.decorator_list:
        return False
    if (statement.end_lineno or statement.lineno) - statement.lineno > CONVERTER_LINES:
        return False
    given = statement.args
    count = len(given.posonlyargs) + len(given.args) + len(given.kwonlyargs)
    if not 1 <= count <= 2 or given.vararg is not None or given.kwarg is not None:
        return False
    inner = [n for s in statement.body for n in walk(s) if isinstance(n, ast.stmt)]
    return len(inner) <= CONVERTER_STATEMENTS and not any(
        isinstance(n, _NOT_IN_CONVERTERS) for s in statement.body for n in walk(s)
    )


_NOT_IN_CONVERTERS = (
    ast.FunctionDef,
    ast.AsyncFunctionDef,
    ast.ClassDef,
    ast.Lambda,
    ast.For,
    ast.AsyncFor,
    ast.While,
    ast.With,
    ast.AsyncWith,
    ast.Yield,
    ast.YieldFrom,
    ast.Await,
    ast.Global,
    ast.Nonlocal,
)


def _always_kept(statement: ast.stmt) -> bool:
    """``from __future__`` and star imports: what they bind is not known by name."""
    return isinstance(statement, ast.ImportFrom) and (
        statement.module == "__future__" or any(a.name == "*" for a in statement.names)
    )


def _keep(keep: list[bool], start: int, end: int) -> None:
    keep[start : end + 1] = [True] * (end + 1 - start)


def _statements(statement: ast.stmt) -> Iterator[ast.stmt]:
    """``statement`` and the statements nested in its blocks, not entering defs or classes."""
    yield statement
    if isinstance(statement, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
        return
    for body in _bodies(statement):
        for inner in body:
            yield from _statements(inner)


def _nested(statement: ast.stmt) -> Iterator[ast.stmt]:
    """``statement`` and every statement nested in it, defs and classes entered (a loop is
    a statement: its expressions need no walk)."""
    pending = [statement]
    while pending:
        node = pending.pop()
        yield node
        for body in _bodies(node):
            pending.extend(body)


def _aliases(body: Sequence[ast.stmt], words: Sequence[str]) -> Iterator[str]:
    """Other names for the words: ``from os import environ as ENV``, ``_env = os.environ``."""
    for top in body:
        for statement in _statements(top):
            if isinstance(statement, ast.Import | ast.ImportFrom):
                yield from (a.asname for a in statement.names if a.asname and a.name in words)
            elif (
                isinstance(statement, ast.Assign)
                and isinstance(statement.value, ast.Attribute | ast.Name)
                and any(w in ast.unparse(statement.value) for w in words)
            ):
                yield from (t.id for t in statement.targets if isinstance(t, ast.Name))


def _structural(statement: ast.stmt) -> bool:
    """Imports (also inside ``try``/``if``) and module constants: the module's bindings."""
    if isinstance(statement, ast.Import | ast.ImportFrom):
        return True
    if isinstance(statement, ast.Assign | ast.AnnAssign):
        value = statement.value
        return (
            value is not None
            and (statement.end_lineno or statement.lineno) - statement.lineno < _CONSTANT_LINES
            and all(isinstance(node, _CONSTANT_NODES) for node in walk(value))
        )
    if isinstance(statement, ast.If | ast.Try | ast.With):
        return any(isinstance(s, ast.Import | ast.ImportFrom) for s in _statements(statement))
    return False


def _bound(statement: ast.stmt) -> Iterator[str]:
    """Names a top-level statement binds in the module namespace."""
    for inner in _statements(statement):
        if isinstance(inner, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
            yield inner.name
        elif isinstance(inner, ast.Import | ast.ImportFrom):
            yield from ((a.asname or a.name).split(".", 1)[0] for a in inner.names)
        else:
            targets: list[ast.expr] = []
            if isinstance(inner, ast.Assign):
                targets = inner.targets
            elif isinstance(inner, ast.AnnAssign | ast.AugAssign | ast.For | ast.AsyncFor):
                targets = [inner.target]
            elif isinstance(inner, ast.With | ast.AsyncWith):
                targets = [i.optional_vars for i in inner.items if i.optional_vars is not None]
            for target in targets:
                yield from (n.id for n in walk(target) if isinstance(n, ast.Name))


def _span(statement: ast.stmt) -> tuple[int, int]:
    start = statement.lineno
    decorators = getattr(statement, "decorator_list", ())
    if decorators:
        start = min(start, *(d.lineno for d in decorators))
    end = statement.end_lineno or statement.lineno
    return start, end


def text_lines(text: str) -> list[str]:
    """The lines of ``text``, each with its ending, split where Python splits them."""
    return list(_lines(text))


def _lines(text: str) -> Iterator[str]:
    # Python ends lines at \n, \r\n and \r only (not at \f or \u2028, as
    # str.splitlines would), so split exactly where the tokenizer does.
    yield from io.StringIO(text, newline="")


def _idle(line: str) -> bool:
    """A blank or comment-only line between statements: blanking it changes no result,
    and keeps an edited comment from changing the narrowed text."""
    stripped = line.lstrip()
    return not stripped or stripped.startswith("#")


def _ending(line: str) -> str:
    if line.endswith("\r\n"):
        return "\r\n"
    if line.endswith(("\n", "\r")):
        return line[-1]
    return ""
