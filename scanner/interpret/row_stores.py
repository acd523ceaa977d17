"""A read in a loop over a table of rows that stores the value on an object by the row's key.

AMD-AGI/Primus fd1eeab, ``primus/backends/megatron/patches/fla_runtime_patches.py:82-150``::

    _FLA_RUNTIME_KNOBS: tuple = (("use_fla_fused_swiglu", "PRIMUS_FLA_SWIGLU", True), ...)

    for field_name, env_name, default in _FLA_RUNTIME_KNOBS:
        env_raw = os.environ.get(env_name)
        if env_raw is not None:
            resolved = _env_to_typed(env_raw, default)
        ...
        else:
            resolved = default
        setattr(args, field_name, resolved)

The row that names the variable names the attribute its value lands in
(``args.use_fla_fused_swiglu``). What lands there: with the variable unset, the row's
default the loop stores in its place; set, the text converted (by the call that also takes
that default) to the default's type, as the table's typed defaults say. A ``STORE``
decision with ``store="key"`` carries it to the reads of that attribute
(``scanner.reach.config``). A row whose default is neither a boolean nor a number is no
switch: nothing is decided.
"""

from __future__ import annotations

import libcst as cst

from scanner.conventions import OFF_WORDS, ON_WORDS
from scanner.interpret.definition_tables import assigned_values, module_bindings
from scanner.interpret.module import ParsedModule
from scanner.model import Decision, DecisionKind, Outcome
from scanner.syntax.events import Event
from scanner.syntax.walk import nodes

PROBED = ("1", "0", "true", "false")
Row = tuple[object, ...]


def row_store(parsed: ParsedModule, event: Event, knob: str) -> Decision | None:
    """The attribute the row naming ``knob`` stores the read's value in, as a decision;
    None where the read is not of that form."""
    binding = event.binding
    if not event.loops or binding is None or binding.store != "local":
        return None
    target, iterable = event.loops[0]
    names = _targets(target)
    rows = _table(parsed, iterable)
    if names is None or rows is None or not isinstance(event.name, cst.Name):
        return None
    if event.name.value not in names:
        return None
    at = names.index(event.name.value)
    row = next((r for r in rows if len(r) == len(names) and r[at] == knob), None)
    loop = next(
        (n for n in nodes(parsed.tree) if isinstance(n, cst.For) and n.iter is iterable), None
    )
    if row is None or loop is None:
        return None
    stored = _stored(loop, names, binding.name)
    if stored is None:
        return None
    key, default = row[stored[0]], row[stored[1]]
    if (
        not isinstance(key, str)
        or not isinstance(default, bool | int)
        or isinstance(default, float)
    ):
        return None
    outcomes: list[tuple[str | None, Outcome]] = [(None, default)]
    for text in PROBED:
        typed = _typed(text, default)
        if typed is not None:
            outcomes.append((text, typed))
    return Decision(
        kind=DecisionKind.STORE,
        line=event.line,
        column=event.column,
        outcomes=tuple(outcomes),
        name=key,
        store="key",
    )


def _typed(text: str, default: bool | int) -> Outcome:
    if isinstance(default, bool):
        if text in ON_WORDS:
            return True
        return False if text in OFF_WORDS else None
    return int(text) if text.lstrip("-").isdigit() else None


def _targets(target: cst.BaseExpression) -> list[str] | None:
    if not isinstance(target, cst.Tuple):
        return None
    names = [e.value.value for e in target.elements if isinstance(e.value, cst.Name)]
    return names if len(names) == len(target.elements) else None


def _table(parsed: ParsedModule, iterable: cst.BaseExpression) -> list[Row] | None:
    """The rows of the module-level tuple or list of constant tuples ``iterable`` names."""
    if not isinstance(iterable, cst.Name):
        return None
    found: list[Row] | None = None
    for name, value in module_bindings(parsed):
        if name == iterable.value:
            if found is not None:
                return None  # bound twice: not a constant
            found = _rows(value)
    return found


def _rows(value: cst.BaseExpression) -> list[Row] | None:
    if not isinstance(value, cst.Tuple | cst.List):
        return None
    rows: list[Row] = []
    for element in value.elements:
        if not isinstance(element.value, cst.Tuple):
            return None
        rows.append(tuple(_constant(e.value) for e in element.value.elements))
    return rows


_NOT = object()


def _constant(node: cst.BaseExpression) -> object:
    if isinstance(node, cst.SimpleString):
        return node.evaluated_value
    if isinstance(node, cst.Integer):
        return int(node.value, 0)
    if isinstance(node, cst.Name) and node.value in ("True", "False"):
        return node.value == "True"
    return _NOT


def _stored(loop: cst.For, names: list[str], read: str) -> tuple[int, int] | None:
    """``setattr(obj, KEY, value)`` in the loop's body, where KEY is a target of the loop,
    ``value`` a local bound to a target (the default) and elsewhere to a call given the
    read's local and that target (the conversion): the positions of KEY and the default."""
    calls = [n for n in nodes(loop.body) if isinstance(n, cst.Call)]
    for call in calls:
        if not (isinstance(call.func, cst.Name) and call.func.value == "setattr"):
            continue
        if len(call.args) != 3 or any(a.keyword or a.star for a in call.args):
            continue
        key, value = call.args[1].value, call.args[2].value
        if not (isinstance(key, cst.Name) and key.value in names and isinstance(value, cst.Name)):
            continue
        bound = assigned_values(loop.body, value.value)
        defaults = [b.value for b in bound if isinstance(b, cst.Name) and b.value in names]
        converted = [
            b
            for b in bound
            if isinstance(b, cst.Call)
            and {a.value.value for a in b.args if isinstance(a.value, cst.Name)}
            >= {read, *defaults[:1]}
        ]
        if len(defaults) == 1 and converted:
            return names.index(key.value), names.index(defaults[0])
    return None
