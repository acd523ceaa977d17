"""Shell scripts: what a launcher reads (with defaults and verdicts) and what it
exports (with the conditions that imply it).

The script is walked in document order with what it has set so far: a variable
the script sets itself (a local, a loop variable, ``X=$(cmd)``) is not a knob
when read afterwards; ``X=${X:-d}`` keeps X a knob whose default is now d. A
``source`` of a file beside the script is followed for the defaults it sets.
"""

from __future__ import annotations

import hashlib
import re
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field, replace
from functools import partial
from pathlib import Path
from typing import TYPE_CHECKING, Final

from scanner.conventions import is_launch_fact, says_disable
from scanner.languages import Language
from scanner.launcher.config_verdict import on_off_default, override_key
from scanner.launcher.sbatch import with_directives
from scanner.launcher.shell_commands import command_writes
from scanner.launcher.shell_flags import branch_flags, with_passes
from scanner.launcher.shell_repair import Script, parse_script
from scanner.launcher.shell_syntax import (
    DEFAULTING,
    REQUIRING,
    SHELL_VARIABLES,
    Expansion,
    command_name,
    expansion,
    first_error,
    is_expansion,
    literal,
    named,
    sole_expansion,
    sole_read,
    text,
    unquoted,
)
from scanner.launcher.shell_tests import (
    Condition,
    Fact,
    condition_of,
    read_verdict,
    set_test_verdict,
)
from scanner.launcher.shell_tree import MAX_DEPTH, Tree, clip, deeper_than
from scanner.launcher.shell_uses import Uses, settle
from scanner.model import (
    LAUNCH_GATE,
    VALUE_GATE,
    DynamicRead,
    FileResult,
    GateKind,
    LauncherRead,
    Polarity,
    ReadKind,
    ScanError,
    Site,
    Write,
    WriteKind,
    unknown_gate,
)
from scanner.patterns import matches
from scanner.settings import Settings
from scanner.source.files import SourceError, read_bytes

if TYPE_CHECKING:
    from tree_sitter import Node

# How Primus's hooks hand variables to their runner: they print ``env.NAME=VALUE``.
PRINTED_WRITES: Final = (r"env\.(?P<name>[A-Za-z_][A-Za-z0-9_]*)=(?P<value>.*)",)
SCRIPT: Final = "<script>"
MAX_SOURCE_DEPTH: Final = 4
# What the files one script sources may come to, a file counted each time it is sourced
# (real launchers: about 100 KB).
MAX_SOURCED_BYTES: Final = 256 * 1024
_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]*\Z")
_PLACEHOLDER: Final = re.compile(r"(?<!<)<[A-Za-z_][A-Za-z0-9_ ./:-]{0,80}>")
_EXITS: Final = frozenset({"exit", "return"})
_QUIET: Final = frozenset(
    {"echo", "printf", "true", ":", "log", "LOG_INFO", "LOG_WARN", "LOG_ERROR"}
)
_HERE: Final = "\x01here\x01"  # stands for the script's own folder in a sourced path
# Conditions a write keeps (real launchers: 8 at most); a write under more is implied by
# none of them, and its condition says how many more there are.
MAX_CONDITIONS: Final = 32
# Function bodies read one inside another at their calls (real launchers: 4 at most); a
# call deeper than that is read at the end of the script.
MAX_CALLS: Final = 16
TOO_DEEP: Final = "The script nests its statements too deeply to analyse; nothing of it is listed."


@dataclass(frozen=True, slots=True)
class _Context:
    function: str = SCRIPT
    conditions: tuple[Condition, ...] = ()
    dropped: int = 0  # conditions past MAX_CONDITIONS, not kept

    def under(self, condition: Condition) -> _Context:
        if len(self.conditions) >= MAX_CONDITIONS:
            return replace(self, dropped=self.dropped + 1)
        return replace(self, conditions=(*self.conditions, condition))


@dataclass(slots=True)
class _Sourcing:
    """The bytes the script's sourced files may still take, and whether one was left out."""

    left: int = MAX_SOURCED_BYTES
    stopped: bool = False


@dataclass(slots=True, kw_only=True)
class _State:
    """What the script has set so far."""

    locals: set[str] = field(default_factory=set)
    defaults: dict[str, str | None] = field(default_factory=dict)  # X=${X:-d}: X -> d
    computed: dict[str, str] = field(default_factory=dict)  # X=${X:-$(cmd)}: X -> "$(cmd)"
    values: dict[str, str] = field(default_factory=dict)  # X=literal
    here: set[str] = field(default_factory=set)  # names that hold the script's own folder


def read_shell(rel: str, data: bytes, text: str, settings: Settings, path: Path) -> LauncherRead:
    """A shell script's reader (see scanner.languages): its analysis, with the writes of its
    ``#SBATCH`` directives; a script nested too deeply for Python's stack is an error."""
    try:
        shell = analyse_shell(rel, data, settings, path)
    except RecursionError:
        return LauncherRead(error=ScanError(rel, TOO_DEEP))
    return replace(shell, result=with_directives(shell.result, rel, text, settings))


def analyse_shell(
    rel: str, data: bytes, settings: Settings, path: Path | None = None
) -> LauncherRead:
    """The reads, dynamic reads and writes of one shell script, and the other files it
    read (path -> digest)."""
    script = parse_script(data)
    if deeper_than(script.root, MAX_DEPTH):
        return LauncherRead(FileResult(), ScanError(rel, TOO_DEEP))
    bad = first_error(script.root)
    template = _placeholder(script.source, bad) if bad is not None else None
    if template is not None:
        why = (
            f"The script does not parse: {template} is a placeholder to fill in, not bash (a "
            "template); nothing of it is listed. Fill it in, or exclude the file."
        )
        return LauncherRead(FileResult(), ScanError(rel, why, template=template))
    walker = _Walker(rel, script, settings, path)
    walker.run(script.root.children)
    error = None
    if bad is not None:
        # Where the parser gave up: the last token the error swallowed.
        line, column = walker.tree.position(bad.children[-1] if bad.children else bad)
        error = ScanError(
            rel,
            f"The bash grammar cannot parse the script near line {line}, column {column}; "
            "reads around there may be missing or misjudged. Check it with 'bash -n'.",
        )
    elif walker.sourcing.stopped:
        error = ScanError(
            rel,
            f"The files the script sources come to more than {MAX_SOURCED_BYTES:,} bytes (a "
            "file counts each time); those past that are not followed, so reads after them "
            "may be misjudged.",
        )
    uses = Uses(
        used=walker.used,
        assigned=walker.assigned,
        passes=walker.passes,
        built=walker.built,
        quiet=walker.quiet_sites,
        guards=walker.guards,
    )
    sites = settle(walker.sites, uses)
    result = FileResult(
        sites=tuple(sorted(sites, key=lambda s: s.sort_key)),
        dynamic=tuple(sorted(walker.dynamic, key=lambda d: d.sort_key)),
        writes=tuple(sorted(walker.writes, key=lambda w: w.sort_key)),
    )
    return LauncherRead(result, error, tuple(sorted(walker.depends.items())))


class _Walker:
    def __init__(self, rel: str, script: Script, settings: Settings, path: Path | None) -> None:
        self.rel = rel
        self.tree = Tree(script)
        self.settings = settings
        self.path = path
        self.state = _State()
        self.sites: list[Site] = []
        self.dynamic: list[DynamicRead] = []
        self.writes: list[Write] = []
        self.depends: dict[str, str] = {}
        self.printed = [re.compile(p) for p in (*PRINTED_WRITES, *settings.printed_writes)]
        self.sourced = 0
        self.sourcing = _Sourcing()
        # Functions that print a write from their arguments (Primus's ``emit_env K V``):
        # name -> (the parameter naming the variable, the value's parameter or constant).
        self.printers: dict[str, tuple[int, int | str | None]] = {}
        self.params: dict[str, dict[str, int]] = {}  # function -> local -> positional number
        self.used: set[str] = set()  # read as a value (an argument, a path), not only shown
        self.assigned: set[str] = set()  # given a value of the script's own after a read
        self.read_names: set[str] = set()  # the names of self.sites
        self.quiet = False  # reading the arguments of echo, printf or a log function
        self.passes: set[int] = set()  # sites of X=${X:-d}: a default, judged by what follows
        self.built: set[int] = set()  # those whose default is built from other variables
        self.quiet_sites: set[int] = set()  # sites read while quiet
        # Sites read in a test whose branch only stops the script or prints: a requirement
        # or a warning, no switch.
        self.guards: set[int] = set()
        # Functions by name, their bodies read at the first call (what the script has set
        # by then is what they see); those never called are read at the end.
        self.functions: dict[str, Node] = {}
        self.called: set[str] = set()
        self.calls = 0  # function bodies being read, one inside another

    def run(self, statements: Iterable[Node]) -> None:
        """The script's statements, then the functions it never calls."""
        self.block(statements, _Context())
        for name in list(self.functions):
            self._call(name)

    def _call(self, name: str) -> None:
        if name not in self.functions or name in self.called or self.calls >= MAX_CALLS:
            return  # past MAX_CALLS, the body is read at the end of the script
        self.called.add(name)
        self.calls += 1
        self.block([self.functions[name]], _Context(function=name))
        self.calls -= 1

    # Statements ---------------------------------------------------------------------

    def block(self, statements: Iterable[Node], context: _Context) -> None:
        """Run a sequence of statements; a guard (``[[ ... ]] || exit``) puts the rest
        under its condition."""
        for node in statements:
            if not node.is_named or node.type == "comment":
                continue
            guard = self.statement(node, context)
            if guard is not None:
                context = context.under(guard)

    def statement(self, node: Node, context: _Context) -> Condition | None:
        kind = node.type
        if kind == "if_statement":
            return self._if(node, context)
        if kind == "list":
            return self._list(node, context)
        if kind == "case_statement":
            self._case(node, context)
        elif kind in ("for_statement", "select_statement"):
            variable = node.child_by_field_name("variable")
            for child in node.children:
                if child.type == "do_group":
                    continue
                if child != variable:
                    self.reads(child, context)
            if variable is not None:
                self.state.locals.add(text(variable))
            self._body(node, context)
        elif kind in ("while_statement", "until_statement", "c_style_for_statement"):
            for child in node.children:
                if child.type == "variable_assignment" and kind == "c_style_for_statement":
                    self._assignment(child, context, export=False, local=True)
                elif child.is_named and child.type != "do_group":
                    self.statement(child, context)  # while read -r line: line is a local
            self._body(node, context)
        elif kind == "function_definition":
            name = node.child_by_field_name("name")
            body = node.child_by_field_name("body")
            if body is not None and name is not None:
                self.functions.setdefault(text(name), body)  # read at its first call
            elif body is not None:
                self.block([body], _Context())
        elif kind in ("compound_statement", "subshell", "do_group"):
            self.block(node.children, context)
        elif kind == "redirected_statement":
            body = node.child_by_field_name("body")
            for child in node.children:
                if child == body:
                    self.statement(child, context)
                else:
                    self.reads(child, context)
        elif kind == "pipeline" or kind == "negated_command":
            for child in named(node):
                self.statement(child, context)
        elif kind == "declaration_command":
            self._declaration(node, context)
        elif kind == "variable_assignment":
            self._assignment(node, context, export=False)
        elif kind == "variable_assignments":
            for child in named(node):
                self._assignment(child, context, export=False)
        elif kind == "unset_command":
            for child in named(node):
                if child.type in ("variable_name", "word") and not text(child).startswith("-"):
                    self._write(child, text(child), WriteKind.UNSET, None, context)
                    self.state.locals.discard(text(child))
        elif kind == "command":
            self._command(node, context)
        else:
            self.reads(node, context)
        return None

    def _body(self, node: Node, context: _Context) -> None:
        """A loop's body: it may not run at all."""
        for child in node.children:
            if child.type == "do_group":
                self._branches([partial(self.block, child.children, context)], exhaustive=False)

    def _branches(self, runs: Sequence[Callable[[], object]], *, exhaustive: bool) -> None:
        """Run each branch from the state before them all. After them, a variable is the
        script's own only where every branch sets it and one of them must run: a read
        after ``if [[ -z $X ]]; then X=1; fi`` still reads the environment."""
        state = self.state
        locals_before, values_before = set(state.locals), dict(state.values)
        made: list[set[str]] = []
        for run in runs:
            state.locals.clear()
            state.locals.update(locals_before)
            state.values.clear()
            state.values.update(values_before)
            run()
            made.append(state.locals - locals_before)
        kept = set.intersection(*made) if exhaustive and made else set()
        state.locals.clear()
        state.locals.update(locals_before | kept)
        state.values.clear()
        state.values.update(values_before)

    def _if(self, node: Node, context: _Context) -> Condition | None:
        branches: list[tuple[list[Node], list[Node]]] = []  # (condition, body)
        otherwise: list[Node] | None = None
        condition: list[Node] = []
        body: list[Node] = []
        in_body = False
        for child in node.children:
            kind = child.type
            if kind in ("if", "fi"):
                continue
            if kind == "then":
                in_body = True
            elif kind == "elif_clause":
                branches.append(_clause(child))
            elif kind == "else_clause":
                otherwise = [c for c in child.children if c.type != "else"]
            elif in_body:
                body.append(child)
            else:
                condition.append(child)
        branches.insert(0, (condition, body))
        first: Condition | None = None
        runs: list[Callable[[], object]] = []
        branch = context  # under the negation of every test before
        for tests, statements in branches:
            found = condition_of(tests, self.tree.written)
            runs.append(partial(self._branch, tests, statements, context, branch.under(found)))
            branch = branch.under(found.negated())
            first = first or found
        if otherwise is not None:
            runs.append(partial(self._branch, [], otherwise, context, branch))
        self._branches(runs, exhaustive=otherwise is not None)
        if otherwise is None and len(branches) == 1 and _exits(body) and first is not None:
            return first.negated()
        return None

    def _branch(
        self, tests: Sequence[Node], statements: Sequence[Node], at: _Context, inside: _Context
    ) -> None:
        """One branch of an ``if``: its tests, read where the ``if`` is, then its body."""
        first = len(self.sites)
        for test in tests:
            self.reads(test, at)
        tested = range(first, len(self.sites))
        if _exits(statements) or _only_prints(statements):
            self.guards.update(tested)
        self.block(statements, inside)
        if tests and inside.conditions and inside.dropped == at.dropped:
            flags = branch_flags(" ".join(self.tree.written(s) for s in statements))
            with_passes(self.sites, tested, inside.conditions[-1], flags)

    def _list(self, node: Node, context: _Context) -> Condition | None:
        """``a && b`` and ``a || b``: b runs under a (or its negation); ``a || exit``
        guards what follows."""
        children = node.children
        if len(children) != 3:
            self.reads(node, context)
            return None
        left, op, right = children
        first = len(self.sites)
        if left.type == "list":
            self._list(left, context)
        else:
            self.statement(left, context)
        found = condition_of([left], self.tree.written)
        either = text(op) == "||"
        if _exits([right]) or _only_prints([right]):
            self.guards.update(range(first, len(self.sites)))
        if _exits([right]):
            self.reads(right, context)
            return found if either else found.negated()
        inside = context.under(found.negated() if either else found)
        self._branches([lambda: self.statement(right, inside)], exhaustive=False)
        return None

    def _case(self, node: Node, context: _Context) -> None:
        value = node.child_by_field_name("value")
        if value is not None:
            self.reads(value, context)
        name = sole_read(value)
        subject = self.tree.written(value) if value is not None else ""
        runs: list[Callable[[], object]] = []
        exhaustive = False
        for item in named(node):
            if item.type != "case_item":
                continue
            patterns: list[str | None] = []
            body: list[Node] = []
            in_body = False
            for child in item.children:
                if child.type == ")":
                    in_body = True
                elif in_body:
                    body.append(child)
                elif child.is_named:
                    patterns.append(literal(child))
            shown = "|".join(str(p) for p in patterns)
            source = clip(f"case {subject} in {shown})")
            single = patterns[0] if len(patterns) == 1 else None
            facts: tuple[Fact, ...] = ()
            if name is not None and single is not None and not re.search(r"[*?\[]", single):
                facts = (Fact(name, single),)
            exact = bool(facts)
            runs.append(partial(self.block, body, context.under(Condition(facts, exact, source))))
            exhaustive = exhaustive or "*" in patterns
        self._branches(runs, exhaustive=exhaustive)

    def _declaration(self, node: Node, context: _Context) -> None:
        keyword = text(node.children[0]) if node.children else ""
        flags = {text(c) for c in named(node) if c.type == "word" and text(c).startswith("-")}
        exported = keyword == "export" or any("x" in f for f in flags)
        local = keyword == "local" or (keyword in ("declare", "typeset") and not exported)
        assigned: str | None = None  # the grammar splits a long value into more children
        for child in named(node):
            if child.type == "variable_assignment":
                self._assignment(child, context, export=exported, local=local)
                target = child.child_by_field_name("name")
                assigned = text(target) if target is not None else None
            elif child.type == "variable_name":
                name = text(child)
                assigned = None
                if exported:
                    self._write(child, name, WriteKind.EXPORT, self.state.values.get(name), context)
                elif local:
                    self.state.locals.add(name)
            else:
                self.reads(child, context, target=assigned)
                if exported and assigned is None and _names_computed(child):
                    # export "$K"="$V": a variable whose name is known only at run time
                    written = text(child).partition("=")[2]
                    known = unquoted(written) if written else None
                    shown = written if known is None and written else None
                    self._write(child, None, WriteKind.EXPORT, known, context, shown)

    def _assignment(
        self, node: Node, context: _Context, *, export: bool, local: bool = False
    ) -> None:
        name_node = node.child_by_field_name("name")
        value = node.child_by_field_name("value")
        before = len(self.sites)
        assigned = text(name_node) if name_node is not None else None
        if value is not None and value.type == "array":
            for word in named(value):  # CMD=(run.py model.key="${X}" ...)
                self.reads(
                    word, context, target=assigned, parent=value, override=override_key(text(word))
                )
        elif value is not None:
            self.reads(value, context, target=assigned)
        if name_node is None or name_node.type != "variable_name":
            return
        name = text(name_node)
        own = _self_default(name, value, self.tree) if value is not None else None
        if own is not None:
            mine = [i for i in range(before, len(self.sites)) if self.sites[i].name == name]
            self.passes.update(mine)
            if own[0] is None and _has_fallback(value):
                self.built.update(mine)
        if export:
            known = literal(value) if value is not None else ""
            self._write(node, name, WriteKind.EXPORT, known, context, self._computed(value, known))
        number = _positional(value)
        if number is not None and context.function != SCRIPT:
            self.params.setdefault(context.function, {})[name] = number
        self._record(name, value, local)

    def _record(self, name: str, value: Node | None, local: bool) -> None:
        """What ``name=value`` leaves: a local, or the same knob with a new default."""
        state = self.state
        if value is not None and not local:
            own = _self_default(name, value, self.tree)
            if own is not None:
                state.defaults[name] = own[0]
                found = sole_expansion(value, self.tree.original)
                if found is not None and found.operator:
                    _remember(state.computed, name, self.tree.spelled(found))
                return
            if any(_reads(value, name)):
                return  # PYTHONPATH="$X:${PYTHONPATH:-}": still the environment's value
        self._set_after_read(name)
        state.locals.add(name)
        known = literal(value) if value is not None else ""
        if known is not None:
            state.values[name] = known
        if value is not None and _names_own_folder(text(value)):
            state.here.add(name)

    def _command(self, node: Node, context: _Context) -> None:
        name_node = node.child_by_field_name("name")
        command = text(name_node) if name_node is not None else ""
        args = [c for c in named(node) if c.type not in ("command_name", "variable_assignment")]
        if name_node is not None and any(c.type != "word" for c in name_node.children):
            self.reads(name_node, context)  # ${LAUNCHER} python train.py
        self._call(command)
        for child in named(node):
            if child.type == "variable_assignment":
                value = child.child_by_field_name("value")
                if value is not None:
                    self.reads(value, context)
                target = child.child_by_field_name("name")
                if target is not None and name_node is None:
                    self._record(text(target), value, False)
        flags = command not in ("[", "test")
        self.quiet = _is_quiet(command)
        for at, arg in enumerate(args):
            flag = _flag(args[at - 1] if at else None, arg) if flags else None
            # echo "env.X=${X}" prints the word; a test compares it: neither hands it on
            handed = flags and not self.quiet and flag is None
            override = override_key(text(arg)) if handed else None
            self.reads(arg, context, target=flag, parent=node, override=override)
        self.quiet = False
        self._command_line_writes(node, context)
        if command == "getopts":
            # getopts OPTSTRING NAME: NAME is the option it parsed, never the environment's
            if len(args) >= 2 and _NAME.match(text(args[1])):
                self.state.locals.add(text(args[1]))
        elif command in ("read", "mapfile", "readarray"):
            words = [text(a) for a in args if a.type == "word" and not text(a).startswith("-")]
            self.state.locals.update(w for w in words if _NAME.match(w))
        elif command in ("source", ".") and args:
            self._source(args[0])
        elif command in ("echo", "printf"):
            self._printed(node, args, context)
        elif command in self.printers:
            self._printer_call(node, args, context)

    def _command_line_writes(self, node: Node, context: _Context) -> None:
        """What a command sets for the program it starts: ``X=1 cmd``, ``env X=1 cmd``,
        ``docker run -e X=1``, ``srun --export=X=1``."""
        name_node = node.child_by_field_name("name")
        if name_node is None:
            return
        for child in node.children:
            if child.type != "variable_assignment":
                continue
            target = child.child_by_field_name("name")
            if target is None:
                continue
            if text(target) in SHELL_VARIABLES:
                continue  # IFS= read -r line
            value = child.child_by_field_name("value")
            known = literal(value) if value is not None else ""
            computed = self._computed(value, known)
            self._write(child, text(target), WriteKind.PREFIX, known, context, computed)
        args = [c for c in named(node) if c.type not in ("command_name", "variable_assignment")]
        for found in command_writes(text(name_node), args):
            kind = WriteKind.UNSET if found.removes else WriteKind.PREFIX
            self._write(found.node, found.name, kind, found.value, context, found.computed)

    # Reads ----------------------------------------------------------------------------

    def reads(
        self,
        node: Node,
        context: _Context,
        target: str | None = None,
        parent: Node | None = None,
        override: str | None = None,
    ) -> None:
        """Every read inside ``node`` (its commands substituted too); ``target`` is what
        a read there lands in (the flag it is passed as, the variable it is assigned to);
        ``parent``, the node's, when the caller has it; ``override``, the config path
        ``node`` hands its one read to as an override (``model.key="${X}"``)."""
        tree = self.tree
        if parent is not None:
            tree.note(parent, [node])
        stack: list[tuple[Node, bool]] = [(node, False)]
        while stack:
            current, arithmetic = stack.pop()
            kind = current.type
            if kind in ("comment", "raw_string", "ansi_c_string"):
                continue
            children = current.children
            tree.note(current, children)
            if kind == "command":
                self._command_line_writes(current, context)  # if X=1 cmd; then, $(X=1 cmd)
            if is_expansion(current):
                up = tree.noted(current)  # none: the word the caller passed, not quoted
                quoted = up is not None and up.type == "string"
                found = expansion(current, quoted=quoted, original=tree.original)
                self._read(current, found, context, target, override)
                if found.word is not None:
                    stack.append((found.word, arithmetic))
                for child in children:
                    if child.type == "subscript":  # ${A[$I]}, ${A[I]}: the index is read
                        index = [c for c in child.children if c.is_named]
                        tree.note(child, index)
                        stack.extend((c, True) for c in index[1:])
                continue
            if kind == "variable_name" and arithmetic:
                self._read_name(current, current, text(current), context)
                continue
            if kind == "unary_expression" and _is_set_test(current):
                operand = children[1]
                self._read_name(current, operand, text(operand), context)
                continue
            inside = arithmetic or kind in ("arithmetic_expansion", "arithmetic_expression")
            stack.extend((c, inside) for c in reversed(children))
        tree.forget()

    def _read(
        self,
        node: Node,
        found: Expansion,
        context: _Context,
        target: str | None = None,
        override: str | None = None,
    ) -> None:
        if found.name is None:
            return
        if found.indirect:
            self.dynamic.append(
                self._dynamic(
                    node, context, f"an indirect expansion: the name is the value of {found.name}"
                )
            )
            return
        self._read_name(node, node, found.name, context, found, target, override)

    def _read_name(
        self,
        node: Node,
        at: Node,
        name: str,
        context: _Context,
        found: Expansion | None = None,
        target: str | None = None,
        override: str | None = None,
    ) -> None:
        state = self.state
        if name in SHELL_VARIABLES or name in state.locals or not _NAME.match(name):
            return
        if self.settings.match and not matches(name, self.settings.match):
            return
        operator = found.operator if found is not None else ""
        computed: str | None = None
        if found is not None and operator in DEFAULTING:
            default = found.fallback()  # None: built from other variables, not a constant
            computed = self.tree.spelled(found)
        else:
            default = state.defaults.get(name)
            computed = state.computed.get(name) if default is None else None
        if found is not None and operator == "" and state.defaults.get(name) is not None:
            # $X after X=${X:-d}: reads as ${X:-d} would
            found = replace(found, operator=":-", word=None, default=state.defaults[name])
        if is_launch_fact(name, self.settings.launch_facts):
            gate = LAUNCH_GATE
        elif found is None:
            gate = set_test_verdict() if node.type == "unary_expression" else VALUE_GATE
        else:
            gate = read_verdict(found, self.tree)
        if gate.kind in (GateKind.BOOLEAN, GateKind.PRESENCE) and says_disable(name):
            gate = replace(gate, polarity=Polarity.DISABLE)
        if gate.kind is GateKind.VALUE and not self.quiet and target != name:
            self.used.add(name)
        if (
            gate.kind is GateKind.VALUE
            and target is not None
            and target.startswith("-")
            and (default is None or on_off_default(default) is not None)
        ):
            gate = unknown_gate(f"it is passed as {target}, whose type is not known yet")
        if self.quiet:
            self.quiet_sites.add(len(self.sites))
        line, column = self.tree.position(at)
        if operator == ":=" or operator == "=":
            state.defaults[name] = default
            _remember(state.computed, name, computed)
        self.read_names.add(name)
        self.sites.append(
            Site(
                name=name,
                path=self.rel,
                line=line,
                column=column,
                kind=ReadKind.REQUIRED if operator in REQUIRING else ReadKind.EXPANSION,
                default=default,
                gate=gate,
                function=context.function,
                language=Language.SHELL,
                target=target if target != name else None,
                override=override,
                default_computed=clip(computed) if computed is not None else None,
            )
        )

    def _computed(self, value: Node | None, known: str | None) -> str | None:
        """A written value as its source text when it is not a constant."""
        return self.tree.written(value) if value is not None and known is None else None

    def _set_after_read(self, name: str) -> None:
        """The script gives ``name`` a value of its own after reading it."""
        if name in self.read_names:
            self.assigned.add(name)

    def _dynamic(self, node: Node, context: _Context, reason: str) -> DynamicRead:
        line, column = self.tree.position(node)
        return DynamicRead(
            path=self.rel,
            line=line,
            column=column,
            expression=self.tree.written(node),
            function=context.function,
            reason=reason,
        )

    # Writes ---------------------------------------------------------------------------

    def _write(
        self,
        node: Node,
        name: str | None,
        kind: WriteKind,
        value: str | None,
        context: _Context,
        computed: str | None = None,
    ) -> None:
        if name is not None and self.settings.match and not matches(name, self.settings.match):
            return
        if name is not None and kind is not WriteKind.UNSET:
            self._set_after_read(name)
        line, column = self.tree.position(node)
        conditions = context.conditions
        facts = [f for c in conditions for f in c.facts]
        # A test of the script's own variable is no condition on the environment.
        exact = all(c.exact for c in conditions) and not any(
            f.name in self.state.locals for f in facts
        )
        when: tuple[tuple[str, str], ...] = ()
        if exact and facts and all(f.equal for f in facts) and not context.dropped:
            when = tuple(sorted({(f.name, f.value) for f in facts}))
        shown = [c.text for c in conditions]
        if context.dropped:
            shown.append(f"... ({context.dropped} more)")
        self.writes.append(
            Write(
                name=name,
                path=self.rel,
                line=line,
                column=column,
                kind=kind,
                function=context.function,
                value=value,
                language=Language.SHELL,
                condition=clip(" && ".join(shown)) or None,
                when=when,
                computed=clip(computed) if value is None and computed is not None else None,
            )
        )

    def _printed(self, node: Node, args: Sequence[Node], context: _Context) -> None:
        """``echo "env.NAME=VALUE"``: a line a hook prints for its runner to export; in a
        function that prints its own arguments (``echo "env.${1}=${2}"``), the function
        becomes a printer whose calls are writes."""
        words = [a for a in args if not (a.type == "word" and text(a) in ("-e", "-n", "-E"))]
        if not words:
            return
        params = self.params.get(context.function, {})
        printed = " ".join(_partial(w, params) for w in words).rstrip("\n")
        if printed.endswith("\\n"):
            printed = printed[:-2]
        for pattern in self.printed:
            hit = pattern.fullmatch(printed)
            if hit is None:
                continue
            name, value = hit.group("name"), hit.group("value")
            named_by = _PARAM.fullmatch(name)
            if named_by is not None and context.function != SCRIPT:
                given = _PARAM.fullmatch(value)
                known: int | str | None = int(given[1]) if given is not None else value
                if known is not None and not isinstance(known, int) and _UNKNOWN in known:
                    known = None
                self.printers[context.function] = (int(named_by[1]), known)
                return
            self._write(
                node,
                None if _UNKNOWN in name or _PARAM.search(name) else name,
                WriteKind.PRINTED,
                None if _UNKNOWN in value or _PARAM.search(value) else value,
                context,
            )
            return

    def _printer_call(self, node: Node, args: Sequence[Node], context: _Context) -> None:
        """``emit_env NCCL_ALGO Ring``: a call of a function that prints a write."""
        name_at, value_at = self.printers[command_name(node)]
        name = literal(args[name_at - 1]) if len(args) >= name_at else None
        if isinstance(value_at, int):
            value = literal(args[value_at - 1]) if len(args) >= value_at else ""
        else:
            value = value_at
        self._write(node, name, WriteKind.PRINTED, value, context)

    # Sourced files --------------------------------------------------------------------

    def _source(self, arg: Node) -> None:
        """Take the defaults and locals a sourced file beside this one sets."""
        if self.path is None or self.sourced >= MAX_SOURCE_DEPTH:
            return
        target = self._sourced_path(arg)
        if target is None:
            return
        try:
            data = read_bytes(target, MAX_SOURCED_BYTES)  # a regular file, bounded
        except SourceError:
            return
        self.depends[str(target)] = "digest:" + hashlib.sha256(data).hexdigest()
        if len(data) > self.sourcing.left:
            self.sourcing.stopped = True
            return
        self.sourcing.left -= len(data)
        script = parse_script(data)
        if deeper_than(script.root, MAX_DEPTH):
            return
        inner = _Walker(self.rel, script, self.settings, target)
        inner.sourced = self.sourced + 1
        inner.state = self.state
        inner.depends = self.depends
        inner.sourcing = self.sourcing
        inner.printers = self.printers
        inner.params = self.params
        inner.run(script.root.children)

    def _sourced_path(self, arg: Node) -> Path | None:
        assert self.path is not None
        here = self.path.parent
        parts: list[str] = []
        nodes = [arg] if arg.type != "string" and arg.type != "concatenation" else named(arg)
        for part in nodes:
            if is_expansion(part):
                found = expansion(part)
                if found.name in self.state.here or (
                    found.name == "BASH_SOURCE" and found.operator in ("%", "%%")
                ):
                    parts.append(_HERE)
                    continue
                return None
            if part.type == "command_substitution":
                if not _names_own_folder(text(part)):
                    return None
                parts.append(_HERE)
                continue
            known = literal(part)
            if known is None:
                return None
            parts.append(known)
        joined = "".join(parts)
        if not joined.startswith(_HERE):
            return None
        candidate = (here / joined[len(_HERE) :].lstrip("/")).resolve()
        return candidate if candidate.is_file() else None


def _flag(before: Node | None, arg: Node) -> str | None:
    """The command-line flag an argument is the value of: ``--seq-length "$X"`` or
    ``--seq-length="$X"`` (``--seq-length``); None for any other argument."""
    own = text(arg)
    if own.startswith("--") and "=" in own:
        return own.split("=", 1)[0] if len(own.split("=", 1)[0]) > 2 else None
    if before is None:
        return None
    flag = text(before).strip("\"'")
    if flag.startswith("-") and flag.lstrip("-") and "=" not in flag and " " not in flag:
        return flag
    return None


def _clause(node: Node) -> tuple[list[Node], list[Node]]:
    condition: list[Node] = []
    body: list[Node] = []
    in_body = False
    for child in node.children:
        if child.type == "elif":
            continue
        if child.type == "then":
            in_body = True
        elif in_body:
            body.append(child)
        else:
            condition.append(child)
    return condition, body


def _exits(statements: Sequence[Node]) -> bool:
    """Whether a body only leaves the script or function (after printing, at most)."""
    commands = [s for s in statements if s.is_named and s.type != "comment"]
    if not commands:
        return False
    names = []
    for command in commands:
        if command.type == "redirected_statement":
            body = command.child_by_field_name("body")
            command = body if body is not None else command
        if command.type != "command":
            return False
        name = command.child_by_field_name("name")
        names.append(text(name) if name is not None else "")
    return names[-1] in _EXITS and all(n in _EXITS or _is_quiet(n) for n in names)


def _only_prints(statements: Sequence[Node]) -> bool:
    """Whether a body does nothing but print (a warning)."""
    commands = [s for s in statements if s.is_named and s.type != "comment"]
    return bool(commands) and all(
        c.type == "command" and _is_quiet(text(c.child_by_field_name("name") or c))
        for c in commands
    )


def _is_quiet(command: str) -> bool:
    """Whether a command only prints: echo, printf, a log function."""
    return command in _QUIET or command.startswith(("LOG_", "log_"))


def _is_set_test(node: Node) -> bool:
    children = node.children
    return len(children) == 2 and text(children[0]) == "-v" and children[1].type == "word"


def _positional(value: Node | None) -> int | None:
    """``"$1"``, ``${2:-}``: the number of the positional parameter a value is, if any."""
    name = sole_read(value)
    return int(name) if name is not None and name.isdigit() else None


def _self_default(name: str, value: Node, tree: Tree) -> tuple[str | None] | None:
    """``X=${X:-d}`` (or ``"${X:-d}"``): the default d (None when not a constant)."""
    found = sole_expansion(value, tree.original)
    if found is None:
        return None
    if found.name != name or found.indirect or found.length:
        return None
    if found.operator in DEFAULTING:
        return (found.fallback(),)
    if found.operator == "":
        return (None,)
    return None


def _placeholder(data: bytes, bad: Node) -> str | None:
    """The placeholder that makes a script that does not parse a template
    (``export DATA=<path>``), with its line (``<path> near line 3``), or None. Whatever the
    grammar makes of a template is invented: nothing of it is listed."""
    row = bad.start_point.row
    lines = data.split(b"\n")
    near = (lines[row] if row < len(lines) else b"") + b"\n" + (bad.text or b"")[:200]
    found = _PLACEHOLDER.search(near.decode("utf-8", "replace"))
    if found is None:
        return None
    text = found[0].encode()
    at = next((n for n in range(row, len(lines)) if text in lines[n]), row)
    return f"{found[0]} near line {at + 1}"


def _names_computed(word: Node) -> bool:
    """Whether an ``export`` argument names its variable by an expansion: ``"$K"=v``,
    ``$K``, ``${P}_X=1``."""
    first = word.children[0] if word.type == "concatenation" and word.children else word
    if first.type == "string":
        first = next(iter(named(first)), first)
    return is_expansion(first) or first.type == "command_substitution"


def _remember(computed: dict[str, str], name: str, text: str | None) -> None:
    if text is None:
        computed.pop(name, None)
    else:
        computed[name] = text


def _has_fallback(value: Node | None) -> bool:
    """Whether ``X=${X:-...}`` gives a fallback (a constant or not), not a bare ``$X``."""
    found = sole_expansion(value)
    return found is not None and found.operator in DEFAULTING


def _reads(node: Node, name: str) -> Iterable[Node]:
    stack = [node]
    while stack:
        current = stack.pop()
        if is_expansion(current) and expansion(current).name == name:
            yield current
        stack.extend(current.children)


def _names_own_folder(source: str) -> bool:
    return "dirname" in source and ("BASH_SOURCE" in source or "$0" in source)


_UNKNOWN: Final = "__knobs_unknown__"  # a part of printed text that is not a constant
_PARAM: Final = re.compile(r"__knobs_param_(\d+)__")  # a positional parameter's value


def _partial(node: Node, params: dict[str, int]) -> str:
    """A word's text with a marker for each part that is not a constant: a positional
    parameter (directly, or through a local set from one) or anything else. The markers
    are identifiers, so that patterns of names match them."""
    known = literal(node)
    if known is not None:
        return known
    if node.type in ("string", "concatenation"):
        return "".join(_partial(c, params) for c in named(node))
    if is_expansion(node):
        found = expansion(node)
        number = params.get(found.name or "") if found.name and not found.name.isdigit() else None
        if found.name is not None and found.name.isdigit():
            number = int(found.name)
        if number is not None and found.operator in ("", *DEFAULTING):
            return f"__knobs_param_{number}__"
    return _UNKNOWN
