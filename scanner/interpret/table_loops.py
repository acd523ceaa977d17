"""Loops over a module-level table that read a variable per key.

lmcache 0.5.6 updates a config from the environment with a loop over its table of
definitions, the name built by a nested helper of one ``return``
(``lmcache/v1/config.py:999-1016``)::

    def _update_config_from_env(self):
        def get_env_name(attr_name):
            return f"LMCACHE_{attr_name.upper()}"

        for name in _CONFIG_DEFINITIONS:
            env_name = get_env_name(name)
            env_value = os.getenv(env_name)

The read names one variable per key of the table: each is a read at that line, with the
default and verdict of the key's definition, as where the table is handed to a factory
(``definition_tables``); an alias table's key takes the definition of the key it names.
The table is a dict literal of the same module; a key that is not a string, or a name
the scan cannot build, leaves the read dynamic.
"""

from __future__ import annotations

import libcst as cst

from scanner.interpret.definition_tables import (
    LoopRead,
    NotRead,
    TableKey,
    entry_field,
    entry_gate,
    entry_of,
    literal_key,
    module_tables,
    name_text,
)
from scanner.interpret.module import ParsedModule
from scanner.interpret.settings_models import default_text
from scanner.model import ReadKind, Site
from scanner.patterns import matches
from scanner.settings import Settings
from scanner.syntax.events import Event
from scanner.syntax.walk import nodes

_VIEWS = frozenset({"keys", "items"})


def loop_sites(parsed: ParsedModule, event: Event, settings: Settings) -> list[Site] | None:
    """The sites of a read in a loop over a module-level table, one per key, in the
    table's order; None when the read is not of that form."""
    if not event.loops or event.name is None:
        return None
    target, iterable = event.loops[0]
    tables = module_tables(parsed)
    table = tables.get(_table_name(iterable, target) or "")
    variable = _variable(target)
    functions = tuple(s for s in event.scopes if isinstance(s, cst.FunctionDef))
    if table is None or variable is None or not functions or _shadowed(iterable, functions):
        return None
    loop = next(
        (n for n in nodes(functions[-1]) if isinstance(n, cst.For) and n.iter is iterable),
        None,
    )
    if loop is None:
        return None
    read = LoopRead(variable, iterable, event.name, (*functions, loop))
    definitions = {  # an alias's key takes the definition of the key it names
        key: TableKey(e.key, e.value, name)
        for name, other in tables.items()
        for e in other.elements
        if isinstance(e, cst.DictElement) and (key := literal_key(e.key)) is not None
    }
    sites: list[Site] = []
    for element in table.elements:
        key = literal_key(element.key) if isinstance(element, cst.DictElement) else None
        if key is None:
            return None
        try:
            name = name_text(event.name, read, {variable: key}, 0)
        except NotRead:
            return None
        if not matches(name, settings.match):
            continue
        assert isinstance(element, cst.DictElement)
        entry = entry_of(TableKey(element.key, element.value, ""), definitions)
        default = entry_field(parsed, entry, "default")
        sites.append(
            Site(
                name=name,
                path=parsed.rel,
                line=event.line,
                column=event.column,
                kind=ReadKind(event.kind),
                default=default_text(default),
                gate=entry_gate(parsed, name, entry, default, settings),
                function=event.function,
                target=key,
            )
        )
    return list(dict.fromkeys(sites))


def _table_name(iterable: cst.BaseExpression, target: cst.BaseExpression) -> str | None:
    """The name of what a loop goes over: ``T``, ``T.keys()``, ``T.items()`` (with a
    pair as the loop's target) or ``list(T)``."""
    node = iterable
    if (
        isinstance(node, cst.Call)
        and len(node.args) == 1
        and isinstance(node.func, cst.Name)
        and node.func.value in ("list", "tuple", "sorted")
    ):
        node = node.args[0].value
    if (
        isinstance(node, cst.Call)
        and not node.args
        and isinstance(node.func, cst.Attribute)
        and node.func.attr.value in _VIEWS
    ):
        if (node.func.attr.value == "items") != isinstance(target, cst.Tuple):
            return None
        node = node.func.value
    return node.value if isinstance(node, cst.Name) else None


def _variable(target: cst.BaseExpression) -> str | None:
    """The loop's variable that holds the key: the target, or the first of a pair."""
    if isinstance(target, cst.Name):
        return target.value
    if isinstance(target, cst.Tuple) and len(target.elements) == 2:
        first = target.elements[0].value
        return first.value if isinstance(first, cst.Name) else None
    return None


def _shadowed(iterable: cst.BaseExpression, functions: tuple[cst.FunctionDef, ...]) -> bool:
    """Whether a function around the loop binds a name the loop's iterable uses."""
    used = {n.value for n in nodes(iterable) if isinstance(n, cst.Name)}
    for function in functions:
        if any(p.name.value in used for p in function.params.params):
            return True
        for node in nodes(function.body):
            if isinstance(node, cst.AssignTarget | cst.AnnAssign) and any(
                isinstance(n, cst.Name) and n.value in used for n in nodes(node.target)
            ):
                return True
    return False
