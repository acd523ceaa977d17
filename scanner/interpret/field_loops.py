"""Dataclasses filled from the environment by a loop over their ``fields()``.

sglang's dumper (``sglang/srt/debug_utils/dumper.py:36``) declares its settings as the
fields of a frozen dataclass; a classmethod of the base builds the instance with
``cls(**{f.name: cls._parse_env_field(cls._env_name(f.name), f.default) for f in
fields(cls)})``, where ``_env_name`` is ``f"{cls._env_prefix()}{name.upper()}"`` and the
subclass's ``_env_prefix()`` returns ``"DUMPER_"``. Each field is a variable: a site
where it is declared, its default the field's, its verdict the type's (a ``bool`` is a
switch on the words the class's own parser turns on; anything else is a value). Where
the form is recognised but a field's name cannot be worked out, that field is a dynamic
read with the reason, one per field; the call in the loop, whose variables these are,
is then no dynamic read of its own.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from dataclasses import dataclass

import libcst as cst
from libcst.metadata import PositionProvider

from scanner.conventions import OFF_WORDS, ON_WORDS, is_launch_fact, says_disable
from scanner.interpret.module import ParsedModule
from scanner.interpret.settings_models import NO_DEFAULT, class_mro, default_text, is_bool, literal
from scanner.model import (
    LAUNCH_GATE,
    VALUE_GATE,
    DynamicRead,
    Gate,
    GateKind,
    Polarity,
    ReadKind,
    Site,
    unknown_gate,
)
from scanner.patterns import dynamic_matches, matches
from scanner.settings import Settings
from scanner.syntax.scopes import body_statements, param_list, sole_return
from scanner.syntax.symbols import qualify
from scanner.syntax.walk import nodes

_READS = frozenset({"os.getenv", "os.environ.get"})
_FIELDS = "dataclasses.fields"
_DATACLASS = "dataclasses.dataclass"
_DATACLASS_FIELD = "dataclasses.field"
MAX_DEPTH = 8
CANDIDATE_WORDS = (*ON_WORDS, *OFF_WORDS)


@dataclass(frozen=True)
class _Loop:
    """A call in a loop over ``fields(cls)`` that reads the variable ``name`` names."""

    owner: str  # the class whose method holds the loop
    call: cst.Call
    name: cst.BaseExpression  # the argument that names the variable (mentions f.name)
    target: str  # the loop's variable (``f``)
    first: str  # the method's first parameter (``cls`` / ``self``)


class _Unknown(Exception):
    """A name the scan cannot work out, with the reason."""


class _Abstract(Exception):
    """A name that rests on an abstract method: the class is never built itself."""


def field_loop_reads(
    parsed: ParsedModule, settings: Settings
) -> tuple[list[Site], list[DynamicRead], frozenset[tuple[int, int]]]:
    """The sites (and dynamic reads) of the dataclasses ``parsed`` fills from the
    environment by a loop over their fields, and the positions of the loops' calls."""
    if "fields(" not in parsed.text or not any(
        target == _FIELDS or target == "dataclasses" for target in parsed.symbols.imports.values()
    ):
        return [], [], frozenset()
    classes = {s.name.value: s for s in parsed.tree.body if isinstance(s, cst.ClassDef)}
    if not classes:
        return [], [], frozenset()
    loops = [loop for node in classes.values() for loop in _loops(parsed, node, classes)]
    if not loops:
        return [], [], frozenset()
    positions = parsed.wrapper.resolve(PositionProvider)
    sites: list[Site] = []
    dynamic: list[DynamicRead] = []
    for node in classes.values():
        mro = class_mro(node, classes)
        owned = [loop for loop in loops if loop.owner in {c.name.value for c in mro}]
        if not owned or not _is_dataclass(parsed, node):
            continue
        words = _bool_words(parsed, mro)
        for target, annotation, value in _fields(mro):
            line, column = _where(parsed, positions[target].start)
            for loop in owned:
                try:
                    name = _text(parsed, loop.name, _Env(node, mro, loop, target.value), 0)
                except _Abstract:
                    continue
                except _Unknown as unknown:
                    text = parsed.tree.code_for_node(loop.name)
                    if dynamic_matches(text, settings.match):
                        dynamic.append(
                            DynamicRead(
                                path=parsed.rel,
                                line=line,
                                column=column,
                                expression=f"{target.value}: {text}",
                                function=node.name.value,
                                reason="the loop over fields() names each field's "
                                f"variable, and {unknown}",
                            )
                        )
                    continue
                if not matches(name, settings.match):
                    continue
                default = _default(parsed, value)
                sites.append(
                    Site(
                        name=name,
                        path=parsed.rel,
                        line=line,
                        column=column,
                        kind=ReadKind.SETTING,
                        default=default_text(default),
                        gate=_gate(name, annotation, default, words, settings),
                        function=node.name.value,
                        via=f"{parsed.module_name}.{node.name.value}".lstrip("."),
                        target=target.value,
                    )
                )
    covered = frozenset(_where(parsed, positions[loop.call].start) for loop in loops)
    return sites, dynamic, covered


def _where(parsed: ParsedModule, at: object) -> tuple[int, int]:
    line, column = at.line, at.column + 1  # type: ignore[attr-defined]
    return (parsed.lines[line - 1] if parsed.lines is not None else line), column


def _loops(
    parsed: ParsedModule, node: cst.ClassDef, classes: dict[str, cst.ClassDef]
) -> Iterator[_Loop]:
    """The calls in ``node``'s methods, inside a loop over ``fields(cls)``, whose
    argument built from the field's name reaches an environment read."""
    for method in _methods(node).values():
        params = param_list(method.params)
        if not params:
            continue
        first = params[0].name.value
        for clause in nodes(method.body):
            over = _over_fields(parsed, clause, first)
            if over is None:
                continue
            target, body = over
            for call in (n for part in body for n in nodes(part)):
                if not isinstance(call, cst.Call):
                    continue
                for position, arg in enumerate(call.args):
                    if (
                        arg.keyword is None
                        and _mentions_name(arg.value, target)
                        and _reads_env(parsed, call, position, first, node, classes)
                    ):
                        yield _Loop(node.name.value, call, arg.value, target, first)


def _over_fields(
    parsed: ParsedModule, node: cst.CSTNode, first: str
) -> tuple[str, list[cst.CSTNode]] | None:
    """``for f in fields(cls): ...`` or a comprehension over it: the loop's variable and
    the code that runs for each field."""
    body: list[cst.CSTNode]
    if isinstance(node, cst.For):
        clause: cst.For | cst.CompFor = node
        body = [node.body]
    elif isinstance(node, cst.DictComp):
        clause, body = node.for_in, [node.key, node.value]
    elif isinstance(node, cst.ListComp | cst.SetComp | cst.GeneratorExp):
        clause, body = node.for_in, [node.elt]
    else:
        return None
    iterable, target = clause.iter, clause.target
    if not isinstance(target, cst.Name) or not isinstance(iterable, cst.Call):
        return None
    if qualify(parsed.symbols, iterable.func) != _FIELDS or len(iterable.args) != 1:
        return None
    argument = iterable.args[0].value
    if not (isinstance(argument, cst.Name) and argument.value == first):
        return None
    return target.value, body


def _mentions_name(node: cst.BaseExpression, target: str) -> bool:
    return any(
        isinstance(n, cst.Attribute)
        and n.attr.value == "name"
        and isinstance(n.value, cst.Name)
        and n.value.value == target
        for n in nodes(node)
    )


def _reads_env(
    parsed: ParsedModule,
    call: cst.Call,
    position: int,
    first: str,
    node: cst.ClassDef,
    classes: dict[str, cst.ClassDef],
    depth: int = 0,
) -> bool:
    """Whether the ``position``-th argument of ``call`` is the name of an environment
    read: ``os.getenv(name)``, or a method of the class that reads its parameter."""
    if qualify(parsed.symbols, call.func) in _READS:
        return position == 0
    method = _method_called(call, first, class_mro(node, classes))
    if method is None or depth >= 2:
        return False
    params = param_list(method.params)
    if not _is_static(method):
        params = params[1:]
    if position >= len(params):
        return False
    param = params[position].name.value
    inner_first = param_list(method.params)[0].name.value if not _is_static(method) else first
    for inner in nodes(method.body):
        if not isinstance(inner, cst.Call):
            continue
        for at, arg in enumerate(inner.args):
            if (
                arg.keyword is None
                and isinstance(arg.value, cst.Name)
                and arg.value.value == param
                and _reads_env(parsed, inner, at, inner_first, node, classes, depth + 1)
            ):
                return True
    return False


def _method_called(call: cst.Call, first: str, mro: list[cst.ClassDef]) -> cst.FunctionDef | None:
    """The method ``cls.m(...)`` / ``self.m(...)`` calls, the nearest class's."""
    func = call.func
    if not (
        isinstance(func, cst.Attribute)
        and isinstance(func.value, cst.Name)
        and func.value.value == first
    ):
        return None
    for owner in reversed(mro):
        found = _methods(owner).get(func.attr.value)
        if found is not None:
            return found
    return None


def _methods(node: cst.ClassDef) -> dict[str, cst.FunctionDef]:
    return {s.name.value: s for s in body_statements(node.body) if isinstance(s, cst.FunctionDef)}


def _decorators(method: cst.FunctionDef) -> set[str]:
    found = set()
    for decorator in method.decorators:
        expression = decorator.decorator
        if isinstance(expression, cst.Attribute):
            found.add(expression.attr.value)
        elif isinstance(expression, cst.Name):
            found.add(expression.value)
    return found


def _is_static(method: cst.FunctionDef) -> bool:
    return "staticmethod" in _decorators(method)


def _is_dataclass(parsed: ParsedModule, node: cst.ClassDef) -> bool:
    for decorator in node.decorators:
        expression = decorator.decorator
        if isinstance(expression, cst.Call):
            expression = expression.func
        if qualify(parsed.symbols, expression) == _DATACLASS:
            return True
    return False


def _fields(
    mro: list[cst.ClassDef],
) -> Iterator[tuple[cst.Name, cst.BaseExpression, cst.BaseExpression | None]]:
    """A dataclass's fields along its bases of the module: ``name: T [= value]`` (not
    ``ClassVar`` or ``InitVar``); a subclass's own win, in their bases' order."""
    found: dict[str, tuple[cst.Name, cst.BaseExpression, cst.BaseExpression | None]] = {}
    for owner in mro:
        for statement in body_statements(owner.body):
            if not isinstance(statement, cst.SimpleStatementLine):
                continue
            for small in statement.body:
                if not isinstance(small, cst.AnnAssign) or not isinstance(small.target, cst.Name):
                    continue
                annotation = small.annotation.annotation
                base = annotation.value if isinstance(annotation, cst.Subscript) else annotation
                kind = base.attr.value if isinstance(base, cst.Attribute) else ""
                kind = base.value if isinstance(base, cst.Name) else kind
                if kind in ("ClassVar", "InitVar"):
                    continue
                found[small.target.value] = (small.target, annotation, small.value)
    yield from found.values()


def _default(parsed: ParsedModule, value: cst.BaseExpression | None) -> object:
    """A field's default: its value or ``field(default=...)``; NO_DEFAULT when it has
    none or it is computed (``default_factory``)."""
    if value is None:
        return NO_DEFAULT
    if isinstance(value, cst.Call) and qualify(parsed.symbols, value.func) == _DATACLASS_FIELD:
        for arg in value.args:
            if arg.keyword is not None and arg.keyword.value == "default":
                return literal(parsed, arg.value, NO_DEFAULT)
        return NO_DEFAULT
    return literal(parsed, value, NO_DEFAULT)


@dataclass(frozen=True)
class _Env:
    """What a name is worked out in: the class built, the field, the bound names."""

    node: cst.ClassDef
    chain: list[cst.ClassDef]  # the class and its bases of the module, the bases first
    loop: _Loop
    field: str
    bound: Mapping[str, str] | None = None
    first: str | None = None


def _text(parsed: ParsedModule, node: cst.BaseExpression, env: _Env, depth: int) -> str:
    """The string ``node`` gives for one field of one class; raises _Unknown (or
    _Abstract) when it cannot be worked out."""
    if depth > MAX_DEPTH:
        raise _Unknown("it is built through too many calls")
    first = env.first if env.first is not None else env.loop.first
    if isinstance(node, cst.SimpleString):
        value = node.evaluated_value
        if isinstance(value, str):
            return value
    elif isinstance(node, cst.ConcatenatedString):
        return _text(parsed, node.left, env, depth) + _text(parsed, node.right, env, depth)
    elif isinstance(node, cst.FormattedString):
        parts = []
        for part in node.parts:
            if isinstance(part, cst.FormattedStringText):
                parts.append(part.value)
            elif (
                isinstance(part, cst.FormattedStringExpression)
                and part.conversion is None
                and part.format_spec is None
            ):
                parts.append(_text(parsed, part.expression, env, depth))
            else:
                raise _Unknown("an f-string part is formatted")
        return "".join(parts)
    elif isinstance(node, cst.BinaryOperation) and isinstance(node.operator, cst.Add):
        return _text(parsed, node.left, env, depth) + _text(parsed, node.right, env, depth)
    elif (
        isinstance(node, cst.Attribute)
        and node.attr.value == "name"
        and isinstance(node.value, cst.Name)
        and node.value.value == env.loop.target
        and env.bound is None
    ):
        return env.field
    elif isinstance(node, cst.Name):
        if env.bound is not None and node.value in env.bound:
            return env.bound[node.value]
        constant = parsed.symbols.constants.get(node.value)
        if isinstance(constant, str):
            return constant
        raise _Unknown(f"{node.value!r} is not a constant")
    elif isinstance(node, cst.Call) and isinstance(node.func, cst.Attribute):
        if node.func.attr.value in ("upper", "lower") and not node.args:
            text = _text(parsed, node.func.value, env, depth)
            return text.upper() if node.func.attr.value == "upper" else text.lower()
        method = _method_called(node, first, env.chain)
        if method is not None:
            return _returned(parsed, method, node, env, depth)
    raise _Unknown(f"{parsed.tree.code_for_node(node)!r} is not a string the scan can read")


def _returned(
    parsed: ParsedModule, method: cst.FunctionDef, call: cst.Call, env: _Env, depth: int
) -> str:
    """What a method of the class returns for a call's arguments: its body must be one
    ``return`` (after a docstring)."""
    if "abstractmethod" in _decorators(method):
        raise _Abstract
    params = [p.name.value for p in param_list(method.params)]
    own_first = None if _is_static(method) else params[0]
    if own_first is not None:
        params = params[1:]
    if any(a.keyword is not None or a.star for a in call.args) or len(call.args) > len(params):
        raise _Unknown(f"the call of {method.name.value}() passes what the scan cannot bind")
    bound = {
        p: _text(parsed, a.value, env, depth + 1) for p, a in zip(params, call.args, strict=False)
    }
    returned = sole_return(method)
    if returned is not None:
        inner = _Env(env.node, env.chain, env.loop, env.field, bound, own_first or env.first)
        return _text(parsed, returned, inner, depth + 1)
    raise _Unknown(f"{method.name.value}() is more than one return")


def _bool_words(parsed: ParsedModule, mro: list[cst.ClassDef]) -> tuple[str, ...] | None:
    """The words the class's parser turns a ``bool`` field on with: ``if
    isinstance(default, bool): return raw.lower() in ("true", "1")`` (the words as
    compared, and whether the value is lowered first); None when there is none."""
    for owner in reversed(mro):
        for method in _methods(owner).values():
            for node in nodes(method.body):
                words = _parsed_words(parsed, node)
                if words is not None:
                    return words
    return None


def _parsed_words(parsed: ParsedModule, node: cst.CSTNode) -> tuple[str, ...] | None:
    if not isinstance(node, cst.If) or not isinstance(node.test, cst.Call):
        return None
    test = node.test
    if not (
        isinstance(test.func, cst.Name)
        and test.func.value == "isinstance"
        and len(test.args) == 2
        and isinstance(test.args[1].value, cst.Name)
        and test.args[1].value.value == "bool"
    ):
        return None
    statements = body_statements(node.body)
    if not statements or not isinstance(statements[0], cst.SimpleStatementLine):
        return None
    returned = statements[0].body[0]
    if not isinstance(returned, cst.Return) or not isinstance(returned.value, cst.Comparison):
        return None
    comparison = returned.value
    if len(comparison.comparisons) != 1 or not isinstance(
        comparison.comparisons[0].operator, cst.In
    ):
        return None
    left, words = comparison.left, comparison.comparisons[0].comparator
    lowered = (
        isinstance(left, cst.Call)
        and isinstance(left.func, cst.Attribute)
        and left.func.attr.value == "lower"
        and not left.args
    )
    if not isinstance(words, cst.Tuple | cst.List | cst.Set):
        return None
    found = [literal(parsed, e.value) for e in words.elements]
    if not all(isinstance(w, str) for w in found):
        return None
    on = {str(w) for w in found}
    return tuple(w for w in CANDIDATE_WORDS if (w.lower() if lowered else w) in on)


def _gate(
    name: str,
    annotation: cst.BaseExpression,
    default: object,
    words: tuple[str, ...] | None,
    settings: Settings,
) -> Gate:
    if is_launch_fact(name, settings.launch_facts):
        return LAUNCH_GATE
    if not is_bool(annotation):
        return VALUE_GATE
    if words is None:
        return unknown_gate("the class's parser of a bool field is not one the scan reads")
    if default is NO_DEFAULT:
        return unknown_gate("the field has no default: the class cannot be built unset")
    if not isinstance(default, bool):
        return unknown_gate(f"its default is {default!r}, not a bool: the code decides")
    off = tuple(w for w in CANDIDATE_WORDS if w not in words)
    return Gate(
        kind=GateKind.BOOLEAN,
        default_on=default,
        off_value="0" if "0" in off else (off[0] if off else None),
        on_value="1" if "1" in words else (words[0] if words else None),
        off_values=off,
        on_values=words,
        polarity=Polarity.DISABLE if says_disable(name) else Polarity.ENABLE,
    )
