"""The strings a stored read is compared with where it is used: the choices of a value.

``_POLICY = os.environ.get("X", "auto")`` at module level compares with nothing where it
stands; the functions that use ``_POLICY`` compare it (``if _POLICY in ("auto", "custom")``,
``elif _POLICY == "torch"``). Those strings are the value's choices: probed, so that the
places the code decides with the value are recorded for the reach to follow. A wrapper's
call may list the values it takes instead (``_env_get_literal("X", "full", mapping={k: k
for k in ("none", "quick", "full")})``): those strings are its choices too.
"""

from __future__ import annotations

from collections.abc import Iterable

import libcst as cst

from scanner.interpret.module import ParsedModule, strings_of
from scanner.syntax.events import Event
from scanner.syntax.walk import nodes


def stored_choices(parsed: ParsedModule, event: Event) -> tuple[str, ...]:
    """The strings the module's functions and statements compare the module name that a
    module-level read is bound to with; none for any other read."""
    binding = event.binding
    if binding is None or binding.store != "global" or event.unit.scope is not None:
        return ()
    own = set(map(id, event.unit.statements))
    found: list[str] = []
    for consumer, _ in parsed.users(binding.name, "global"):
        if id(consumer) in own:
            continue
        root = consumer.body if isinstance(consumer, cst.FunctionDef) else consumer
        for node in nodes(root):
            if isinstance(node, cst.Comparison):
                found.extend(_compared_with(node, binding.name))
    for statement, keys in _tables(parsed).get(binding.name, ()):
        if id(statement) not in own:  # a module-level table that looks it up
            found.extend(keys)
    return tuple(dict.fromkeys(found))


def config_field(event: Event) -> bool:
    """Whether a module-level read is stored as is in a field of an object of another module
    (a config file's ``model_cfg.attention.sparse_mla_backend = os.environ.get("X", "tilelang")``,
    InternLM/xtuner b934f46 examples/v1/config/sft_glm5p2.py:55-56): the code that compares the
    field is in the modules that read it, which the reach follows and weighs the strings of
    (``scanner.reach.key_reads``)."""
    binding = event.binding
    return (
        binding is not None
        and binding.store == "other"
        and event.unit.scope is None
        and binding.value is not None
        and bool(event.chain)
        and id(binding.value) == event.chain[-1]
    )


def listed_choices(event: Event) -> tuple[str, ...]:
    """The strings a wrapper's call maps, in a table among its arguments (the keys of a
    dict display, or the strings a dict comprehension runs over: pytorch/helion ef091f4
    helion/runtime/settings.py:546-553 ``mapping={key: key for key in ("none", "quick",
    "full")}``, :452-457): the values it takes; none for any other read. A list of
    choices handed to a validator (``env_with_choices("X", "a", ["a", "b"])``) is not a
    table the call looks the value up in, and is left to the wrapper's own tests."""
    if event.wrapper is None or not isinstance(event.node, cst.Call):
        return ()
    found: list[str] = []
    for argument in event.node.args[1:]:
        for node in nodes(argument.value):
            if isinstance(node, cst.Dict):
                keys = (e.key for e in node.elements if isinstance(e, cst.DictElement))
                found.extend(_strings(keys))
            elif isinstance(node, cst.DictComp) and isinstance(
                iterated := node.for_in.iter, cst.Tuple | cst.List | cst.Set
            ):
                found.extend(_strings(e.value for e in iterated.elements))
    return tuple(dict.fromkeys(found))


def _strings(values: Iterable[cst.BaseExpression]) -> list[str]:
    """The plain strings among ``values``."""
    return [
        v.evaluated_value
        for v in values
        if isinstance(v, cst.SimpleString) and isinstance(v.evaluated_value, str)
    ]


def _tables(parsed: ParsedModule) -> dict[str, list[tuple[cst.CSTNode, list[str]]]]:
    """Per name, the module-level statements that look it up in a literal table, with the
    table's string keys (found once per module)."""
    key = ("stored_choices.tables",)
    found: dict[str, list[tuple[cst.CSTNode, list[str]]]] | None = parsed.shared.get(key)
    if found is None:
        found = parsed.shared[key] = {}
        for statement in parsed.tree.body:
            if not isinstance(statement, cst.SimpleStatementLine):
                continue
            for node in nodes(statement):
                if isinstance(node, cst.Call) and node.args:
                    looked = node.args[0].value
                    if isinstance(looked, cst.Name):
                        keys = _looked_up(node, looked.value)
                        if keys:
                            found.setdefault(looked.value, []).append((statement, keys))
    return found


def _looked_up(node: cst.Call, name: str) -> list[str]:
    """The string keys of a literal dict whose ``.get`` looks ``name`` up (``{"1": 3, "0":
    1 << 30}.get(_X, 8)``, unslothai unsloth_zoo temporary_patches/moe_utils.py:2447): the
    keys are the values the code tells apart."""
    func = node.func
    if (
        not isinstance(func, cst.Attribute)
        or func.attr.value != "get"
        or not isinstance(func.value, cst.Dict)
        or not node.args
        or not isinstance(node.args[0].value, cst.Name)
        or node.args[0].value.value != name
    ):
        return []
    return [
        key.evaluated_value
        for element in func.value.elements
        if isinstance(element, cst.DictElement)
        and isinstance(key := element.key, cst.SimpleString)
        and isinstance(key.evaluated_value, str)
    ]


def _compared_with(node: cst.Comparison, name: str) -> list[str]:
    """The strings of ``node`` when one of its operands is ``name`` itself."""
    parts = [node.left, *(c.comparator for c in node.comparisons)]
    if not any(isinstance(p, cst.Name) and p.value == name for p in parts):
        return []
    return [s for p in parts for s in strings_of(p)]
