"""Tables of definitions handed to a factory that reads a variable per key.

lmcache 0.5.6 declares its settings in a module-level table (``lmcache/v1/config.py:88``,
``_CONFIG_DEFINITIONS = {"chunk_size": {"type": int, "default": 256, ...}, ...}``) and
builds its class with ``create_config_class(config_definitions=_CONFIG_DEFINITIONS,
config_aliases=_CONFIG_ALIASES)`` (``config.py:1057``), whose nested ``_from_env``
(``v1/config_base.py:260``) loops over the table's keys and reads
``os.getenv(f"{env_prefix}{name.upper()}")`` through a local helper. Each key of a table
the call passes is a variable: a site where the key is written, its default the entry's
``"default"``, its verdict the entry's ``"type"`` (a value; a ``bool`` is parsed by the
entry's converter, which this module does not judge). A key of an alias table takes the
entry of the key it names. Where the form is recognised but a key cannot be read, that
key is a dynamic read with the reason.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from dataclasses import dataclass

import libcst as cst
from libcst.metadata import CodeRange, PositionProvider

from scanner.conventions import is_launch_fact
from scanner.interpret.module import ParsedModule
from scanner.interpret.settings_models import NO_DEFAULT, default_text, is_bool, literal
from scanner.model import (
    LAUNCH_GATE,
    VALUE_GATE,
    DynamicRead,
    Gate,
    ReadKind,
    Site,
    unknown_gate,
)
from scanner.patterns import dynamic_matches, matches
from scanner.settings import Settings
from scanner.syntax.events import Event
from scanner.syntax.index import FUNCTION, Wrapper
from scanner.syntax.scopes import body_statements, param_list, sole_return
from scanner.syntax.symbols import qualify
from scanner.syntax.walk import nodes

_READS = frozenset({"os.getenv", "os.environ.get"})
MAX_DEPTH = 6


class NotRead(Exception):
    """What the scan cannot work out, with the reason."""


@dataclass(frozen=True)
class LoopRead:
    """An environment read in a loop: the loop's variable, what it loops over, the name
    expression, and the functions around it (outermost first; a loop's own body may close
    the list, where the name is bound for each key)."""

    target: str
    iterable: cst.BaseExpression
    name: cst.BaseExpression
    around: tuple[cst.FunctionDef | cst.For, ...]


@dataclass(frozen=True)
class TableKey:
    """A key of a module-level table the call passes."""

    key: cst.BaseExpression
    value: cst.BaseExpression
    table: str


def table_reads(
    parsed: ParsedModule, event: Event, settings: Settings
) -> tuple[list[Site], list[DynamicRead]] | None:
    """The sites of the keys of the tables a call of a factory passes, when the factory
    reads a variable per key; None when the call is not of that form."""
    wrapper = event.wrapper
    if (
        wrapper is None
        or wrapper.kind != FUNCTION
        or event.field is not None
        or not isinstance(event.node, cst.Call)
    ):
        return None
    function = wrapper.function()
    reads = _loop_reads_of(wrapper, function)
    if not reads:
        return None
    bound = _bind(parsed, wrapper, function, event.node)
    if bound is None:
        return None
    tables = module_tables(parsed)
    # Generated from the whole module's code: only once a table's key is to be placed.
    positions: Mapping[cst.CSTNode, CodeRange] | None = None
    sites: list[Site] = []
    dynamic: list[DynamicRead] = []
    owner = event.binding.name if event.binding is not None else wrapper.short_name
    for read in reads:
        try:
            keys = _keys(read.iterable, read, bound, tables, 0)
        except NotRead:
            continue  # not a loop over the tables the call passes
        entries = {key: k for k in keys if (key := literal_key(k.key)) is not None}
        for found in keys:
            if positions is None:
                positions = parsed.wrapper.resolve(PositionProvider)
            at = positions[found.key].start
            line = parsed.lines[at.line - 1] if parsed.lines is not None else at.line
            key = literal_key(found.key)
            try:
                if key is None:
                    raise NotRead(f"the key is not a string the scan can read in {found.table}")
                name = name_text(read.name, read, {**bound, read.target: key}, 0)
            except NotRead as unknown:
                text = parsed.tree.code_for_node(found.key)
                if dynamic_matches(text, settings.match):
                    dynamic.append(
                        DynamicRead(
                            path=parsed.rel,
                            line=line,
                            column=at.column + 1,
                            expression=f"{found.table}[{text}]",
                            function=owner,
                            reason=f"{wrapper.short_name}() reads a variable per key of "
                            f"{found.table}, and {unknown}",
                            via=wrapper.qualname,
                        )
                    )
                continue
            if not matches(name, settings.match):
                continue
            entry = entry_of(found, entries)
            default = entry_field(parsed, entry, "default")
            sites.append(
                Site(
                    name=name,
                    path=parsed.rel,
                    line=line,
                    column=at.column + 1,
                    kind=ReadKind.SETTING,
                    default=default_text(default),
                    gate=entry_gate(parsed, name, entry, default, settings),
                    function=owner,
                    via=wrapper.qualname,
                    target=key,
                )
            )
    if not sites and not dynamic:
        return None
    # Two loops over one table (a class built from the environment and updated from it)
    # read one variable per key.
    return list(dict.fromkeys(sites)), list(dict.fromkeys(dynamic))


_FOUND: dict[tuple[str, str], tuple[LoopRead, ...]] = {}
MAX_FOUND = 4096


def _loop_reads_of(wrapper: Wrapper, function: cst.FunctionDef) -> tuple[LoopRead, ...]:
    """``_loop_reads``, once per wrapper and process (a wrapper is called from many
    files; its definition is parsed once per process too)."""
    key = (wrapper.qualname, wrapper.source)
    found = _FOUND.get(key)
    if found is None:
        if len(_FOUND) >= MAX_FOUND:
            _FOUND.clear()
        found = _FOUND[key] = tuple(_loop_reads(wrapper, function))
    return found


def _loop_reads(wrapper: Wrapper, function: cst.FunctionDef) -> Iterator[LoopRead]:
    """The environment reads in ``for`` loops of the factory and its nested functions."""

    def walk(
        node: cst.CSTNode, around: tuple[cst.FunctionDef, ...], loop: cst.For | None
    ) -> Iterator[LoopRead]:
        if isinstance(node, cst.FunctionDef):
            around = (*around, node)
            loop = None
        if isinstance(node, cst.For) and isinstance(node.target, cst.Name):
            for child in node.body.children:
                yield from walk(child, around, node)
            return
        if (
            isinstance(node, cst.Call)
            and loop is not None
            and isinstance(loop.target, cst.Name)
            and node.args
            and node.args[0].keyword is None
            and qualify(wrapper.symbols, node.func) in _READS
        ):
            yield LoopRead(loop.target.value, loop.iter, node.args[0].value, around)
        for child in node.children:
            yield from walk(child, around, loop)

    yield from walk(function, (), None)


_Bound = Mapping[str, "str | cst.BaseExpression"]


def _bind(
    parsed: ParsedModule, wrapper: Wrapper, function: cst.FunctionDef, call: cst.Call
) -> dict[str, str | cst.BaseExpression] | None:
    """The factory's parameters: a string, or the calling module's expression passed."""
    params = param_list(function.params)
    if wrapper.method:
        params = params[1:]
    bound: dict[str, str | cst.BaseExpression] = {}
    for param in params:
        if param.default is not None:
            value = literal(parsed, param.default)
            bound[param.name.value] = value if isinstance(value, str) else param.default
    for position, arg in enumerate(call.args):
        if arg.star:
            return None
        name = arg.keyword.value if arg.keyword is not None else None
        if name is None:
            if position >= len(params):
                return None
            name = params[position].name.value
        value = literal(parsed, arg.value)
        bound[name] = value if isinstance(value, str) else arg.value
    return bound


def module_tables(parsed: ParsedModule) -> dict[str, cst.Dict]:
    """The calling module's module-level dict literals, by name."""
    return {name: value for name, value in module_bindings(parsed) if isinstance(value, cst.Dict)}


def module_bindings(parsed: ParsedModule) -> Iterator[tuple[str, cst.BaseExpression]]:
    """The module's own bindings of one name to a value (``X = v``, ``X: T = v``), in order."""
    for statement in parsed.tree.body:
        if not isinstance(statement, cst.SimpleStatementLine):
            continue
        for small in statement.body:
            if isinstance(small, cst.Assign) and len(small.targets) == 1:
                target, value = small.targets[0].target, small.value
            elif isinstance(small, cst.AnnAssign) and small.value is not None:
                target, value = small.target, small.value
            else:
                continue
            if isinstance(target, cst.Name):
                yield target.value, value


def _keys(
    node: cst.BaseExpression,
    read: LoopRead,
    bound: _Bound,
    tables: Mapping[str, cst.Dict],
    depth: int,
) -> list[TableKey]:
    """The keys a loop goes over: a table passed to the factory, ``t.keys()``,
    ``list(...)``, a sum of those, or a local bound once to one."""
    if depth > MAX_DEPTH:
        raise NotRead("too deep")
    if isinstance(node, cst.BinaryOperation) and isinstance(node.operator, cst.Add):
        return _keys(node.left, read, bound, tables, depth + 1) + _keys(
            node.right, read, bound, tables, depth + 1
        )
    if (
        isinstance(node, cst.Call)
        and not node.args
        and isinstance(node.func, cst.Attribute)
        and node.func.attr.value == "keys"
    ):
        return _keys(node.func.value, read, bound, tables, depth + 1)
    if (
        isinstance(node, cst.Call)
        and len(node.args) == 1
        and isinstance(node.func, cst.Name)
        and node.func.value in ("list", "tuple", "sorted")
    ):
        return _keys(node.args[0].value, read, bound, tables, depth + 1)
    if isinstance(node, cst.BooleanOperation) and isinstance(node.operator, cst.Or):
        # ``aliases = aliases or {}``: the table passed, or nothing when None is.
        left = bound.get(node.left.value) if isinstance(node.left, cst.Name) else None
        unset = isinstance(left, cst.Name) and left.value == "None"
        return _keys(node.right if unset else node.left, read, bound, tables, depth + 1)
    if isinstance(node, cst.Dict) and not node.elements:
        return []
    if isinstance(node, cst.Name):
        value = bound.get(node.value)
        if isinstance(value, cst.Name) and value.value == "None":
            return []
        if isinstance(value, cst.Name) and value.value in tables:
            table = tables[value.value]
            return [
                TableKey(e.key, e.value, value.value)
                for e in table.elements
                if isinstance(e, cst.DictElement)
            ]
        local = _local(node.value, read)
        if local is not None:
            return _keys(local, read, bound, tables, depth + 1)
    raise NotRead("not a table the call passes")


def assigned_values(body: cst.CSTNode, name: str) -> list[cst.BaseExpression]:
    """The values ``body`` assigns to the name ``name`` alone (``name = value``), in order."""
    return [
        small.value
        for small in nodes(body)
        if isinstance(small, cst.Assign)
        and len(small.targets) == 1
        and isinstance(small.targets[0].target, cst.Name)
        and small.targets[0].target.value == name
    ]


def _local(name: str, read: LoopRead) -> cst.BaseExpression | None:
    """The value of a local the innermost function around the read that binds it binds
    once."""
    for function in reversed(read.around):
        values = assigned_values(function.body, name)
        if values:
            return values[0] if len(values) == 1 else None
    return None


def _nested(name: str, read: LoopRead) -> cst.FunctionDef | None:
    for function in reversed(read.around):
        for statement in body_statements(function.body):
            if isinstance(statement, cst.FunctionDef) and statement.name.value == name:
                return statement
    return None


def name_text(node: cst.BaseExpression, read: LoopRead, bound: _Bound, depth: int) -> str:
    """The string ``node`` gives with the names ``bound``; raises NotRead."""
    if depth > MAX_DEPTH:
        raise NotRead("the name is built through too many steps")
    if isinstance(node, cst.SimpleString) and isinstance(node.evaluated_value, str):
        return node.evaluated_value
    if isinstance(node, cst.FormattedString):
        parts = []
        for part in node.parts:
            if isinstance(part, cst.FormattedStringText):
                parts.append(part.value)
            elif (
                isinstance(part, cst.FormattedStringExpression)
                and part.conversion is None
                and part.format_spec is None
            ):
                parts.append(name_text(part.expression, read, bound, depth + 1))
            else:
                raise NotRead("an f-string part is formatted")
        return "".join(parts)
    if isinstance(node, cst.BinaryOperation) and isinstance(node.operator, cst.Add):
        return name_text(node.left, read, bound, depth + 1) + name_text(
            node.right, read, bound, depth + 1
        )
    if isinstance(node, cst.Name):
        value = bound.get(node.value)
        if isinstance(value, str):
            return value
        local = _local(node.value, read)
        if local is not None and value is None:
            return name_text(local, read, bound, depth + 1)
        raise NotRead(f"{node.value!r} is not a string the scan can read")
    if (
        isinstance(node, cst.Call)
        and isinstance(node.func, cst.Attribute)
        and not node.args
        and node.func.attr.value in ("upper", "lower")
    ):
        text = name_text(node.func.value, read, bound, depth + 1)
        return text.upper() if node.func.attr.value == "upper" else text.lower()
    if isinstance(node, cst.Call) and isinstance(node.func, cst.Name):
        helper = _nested(node.func.value, read)
        if helper is not None:
            return _returned(helper, node, read, bound, depth)
    raise NotRead("the name is built in a way the scan does not follow")


def _returned(
    helper: cst.FunctionDef, call: cst.Call, read: LoopRead, bound: _Bound, depth: int
) -> str:
    """What a nested helper of one ``return`` (after a docstring) gives for a call."""
    params = [p.name.value for p in param_list(helper.params)]
    if len(call.args) > len(params) or any(a.keyword is not None or a.star for a in call.args):
        raise NotRead(f"the call of {helper.name.value}() is not one the scan binds")
    inner = dict(bound)
    for param, arg in zip(params, call.args, strict=False):
        inner[param] = name_text(arg.value, read, bound, depth + 1)
    returned = sole_return(helper)
    if returned is not None:
        return name_text(returned, read, inner, depth + 1)
    raise NotRead(f"{helper.name.value}() is more than one return")


def literal_key(node: cst.BaseExpression) -> str | None:
    if isinstance(node, cst.SimpleString) and isinstance(node.evaluated_value, str):
        return node.evaluated_value
    return None


def entry_of(found: TableKey, entries: Mapping[str, TableKey]) -> cst.Dict | None:
    """A key's definition (``{"type": ..., "default": ...}``); an alias table's key
    (``"old": "new"``) takes the definition of the key it names."""
    if isinstance(found.value, cst.Dict):
        return found.value
    target = literal_key(found.value)
    other = entries.get(target) if target is not None else None
    return other.value if other is not None and isinstance(other.value, cst.Dict) else None


def entry_field(parsed: ParsedModule, entry: cst.Dict | None, name: str) -> object:
    """A field of a definition: the default's value, or another field's expression."""
    if entry is None:
        return NO_DEFAULT
    for element in entry.elements:
        if isinstance(element, cst.DictElement) and literal_key(element.key) == name:
            if name == "default":
                return literal(parsed, element.value, NO_DEFAULT)
            return element.value
    return NO_DEFAULT


def entry_gate(
    parsed: ParsedModule, name: str, entry: cst.Dict | None, default: object, settings: Settings
) -> Gate:
    """A key's verdict from its definition's ``"type"`` (a bool: its converter's, unjudged)."""
    if is_launch_fact(name, settings.launch_facts):
        return LAUNCH_GATE
    kind = entry_field(parsed, entry, "type")
    if not isinstance(kind, cst.BaseExpression):
        return unknown_gate("its definition names no type")
    if not is_bool(kind):
        return VALUE_GATE
    converter = entry_field(parsed, entry, "env_converter")
    how = (
        f"{parsed.tree.code_for_node(converter)}()"
        if isinstance(converter, cst.BaseExpression)
        else "the factory"
    )
    return unknown_gate(f"a bool parsed by {how}, which the scan does not judge here")
