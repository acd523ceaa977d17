"""Settings models: pydantic's ``BaseSettings`` declares a variable per field.

``class Settings(BaseSettings)`` with ``model_config = SettingsConfigDict(
env_prefix="GUIDELLM__", env_nested_delimiter="__")`` (or pydantic 1's inner ``class
Config: env_prefix = ...``) reads ``GUIDELLM__MAX_CONCURRENCY`` into ``max_concurrency:
int = 10240`` when the model is built, and ``GUIDELLM__LOGGING__CONSOLE_LOG_LEVEL`` into
the nested model's field; a field's ``alias`` (``validation_alias``, pydantic 1's
``env``) is the variable's whole name. Each field is a site where it is declared: its
default is the field's, and its verdict the type's (a ``bool`` parses pydantic's words;
anything else is a value). A field whose name or default is computed is a dynamic read.
"""

from __future__ import annotations

from collections.abc import Iterator

import libcst as cst
from libcst.metadata import PositionProvider

from scanner.conventions import is_launch_fact, says_disable
from scanner.interpret.module import ParsedModule
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
from scanner.syntax.scopes import body_statements
from scanner.syntax.symbols import qualify

BASES = frozenset(
    {
        "pydantic_settings.BaseSettings",
        "pydantic_settings.main.BaseSettings",
        "pydantic.BaseSettings",
        "pydantic.v1.BaseSettings",
    }
)
MODELS = frozenset({"pydantic.BaseModel", "pydantic.main.BaseModel", "pydantic.v1.BaseModel"})
# What pydantic parses a bool from (any case); anything else fails validation.
ON = ("1", "true", "yes", "on", "t", "y")
OFF = ("0", "false", "no", "off", "f", "n")
_ALIASES = ("validation_alias", "alias", "env")
MAX_NESTING = 4


def settings_reads(
    parsed: ParsedModule, settings: Settings
) -> tuple[list[Site], list[DynamicRead]]:
    """The sites (and dynamic reads) of the settings models ``parsed`` declares."""
    classes = {s.name.value: s for s in parsed.tree.body if isinstance(s, cst.ClassDef)}
    models = [c for c in classes.values() if _derives(parsed, c, classes, BASES)]
    if not models:
        return [], []
    positions = parsed.wrapper.resolve(PositionProvider)
    sites: list[Site] = []
    dynamic: list[DynamicRead] = []
    for model in models:
        config = _config(parsed, model, classes)
        prefix, delimiter = config.get("env_prefix", ""), config.get("env_nested_delimiter")
        upper = config.get("case_sensitive") is not True
        for target, annotation, value in _fields(model, classes):
            at = positions[target].start
            found = None
            reason = "the field's alias is not a string the scan can read"
            if isinstance(prefix, str):
                found = _name(parsed, value, prefix + target.value, upper)
            else:
                reason = "the model's env_prefix is not a string the scan can read"
            if found is None:
                code = parsed.tree.code_for_node
                text = f"{target.value}: {code(annotation)}"
                text += f" = {code(value)}" if value is not None else ""
                if dynamic_matches(text, settings.match):
                    dynamic.append(
                        DynamicRead(
                            path=parsed.rel,
                            line=at.line,
                            column=at.column + 1,
                            expression=text,
                            function=model.name.value,
                            reason=reason,
                        )
                    )
                continue
            for name, leaf, default in _leaves(
                parsed, found, annotation, value, classes, delimiter, upper
            ):
                if not matches(name, settings.match):
                    continue
                sites.append(
                    Site(
                        name=name,
                        path=parsed.rel,
                        line=at.line,
                        column=at.column + 1,
                        kind=ReadKind.SETTING,
                        default=default_text(default),
                        gate=_gate(name, leaf, default, settings),
                        function=model.name.value,
                        via=f"{parsed.module_name}.{model.name.value}".lstrip("."),
                        target=target.value,
                    )
                )
    return sites, dynamic


NO_DEFAULT = object()


def _leaves(
    parsed: ParsedModule,
    name: str,
    annotation: cst.BaseExpression,
    value: cst.BaseExpression | None,
    classes: dict[str, cst.ClassDef],
    delimiter: object,
    upper: bool,
    depth: int = 0,
) -> Iterator[tuple[str, cst.BaseExpression, object]]:
    """The variables one field reads: itself, and with a nested delimiter, each field of
    a nested model of the module (``GUIDELLM__LOGGING__CONSOLE_LOG_LEVEL``)."""
    yield name, annotation, _default(parsed, value)
    nested = classes.get(annotation.value) if isinstance(annotation, cst.Name) else None
    if not isinstance(delimiter, str) or nested is None or depth >= MAX_NESTING:
        return
    if not _derives(parsed, nested, classes, MODELS | BASES):
        return
    for target, inner, default in _fields(nested, classes):
        leaf = f"{name}{delimiter}{target.value}"
        yield from _leaves(
            parsed,
            leaf.upper() if upper else leaf,
            inner,
            default,
            classes,
            delimiter,
            upper,
            depth + 1,
        )


def _derives(
    parsed: ParsedModule,
    node: cst.ClassDef,
    classes: dict[str, cst.ClassDef],
    bases: frozenset[str],
) -> bool:
    """Whether ``node`` derives from one of ``bases`` (through classes of the module)."""
    pending, seen = [node], set()
    while pending:
        current = pending.pop()
        if current.name.value in seen:
            continue
        seen.add(current.name.value)
        for arg in current.bases:
            if qualify(parsed.symbols, arg.value) in bases:
                return True
            if isinstance(arg.value, cst.Name) and arg.value.value in classes:
                pending.append(classes[arg.value.value])
    return False


def class_mro(node: cst.ClassDef, classes: dict[str, cst.ClassDef]) -> list[cst.ClassDef]:
    """The class and its bases of the module, the bases first."""
    order: list[cst.ClassDef] = []
    pending = [node]
    while pending:
        current = pending.pop(0)
        if current in order:
            continue
        order.append(current)
        pending += [
            classes[a.value.value]
            for a in current.bases
            if isinstance(a.value, cst.Name) and a.value.value in classes
        ]
    return list(reversed(order))


def _config(
    parsed: ParsedModule, node: cst.ClassDef, classes: dict[str, cst.ClassDef]
) -> dict[str, object]:
    """``model_config = SettingsConfigDict(...)`` (or a dict) and ``class Config:``,
    along the bases; the nearest class wins."""
    found: dict[str, object] = {}
    for owner in class_mro(node, classes):
        for statement in body_statements(owner.body):
            if isinstance(statement, cst.ClassDef) and statement.name.value == "Config":
                for target, _, value in _assignments(statement):
                    found[target.value] = literal(parsed, value)
            elif isinstance(statement, cst.SimpleStatementLine):
                for small in statement.body:
                    if isinstance(small, cst.Assign) and any(
                        isinstance(t.target, cst.Name) and t.target.value == "model_config"
                        for t in small.targets
                    ):
                        found.update(_config_items(parsed, small.value))
    return found


def _config_items(parsed: ParsedModule, value: cst.BaseExpression) -> dict[str, object]:
    if isinstance(value, cst.Call):
        return {
            a.keyword.value: literal(parsed, a.value) for a in value.args if a.keyword is not None
        }
    if isinstance(value, cst.Dict):
        return {
            key: literal(parsed, e.value)
            for e in value.elements
            if isinstance(e, cst.DictElement) and isinstance(key := literal(parsed, e.key), str)
        }
    return {}


def _assignments(
    node: cst.ClassDef,
) -> Iterator[tuple[cst.Name, cst.BaseExpression | None, cst.BaseExpression]]:
    for statement in body_statements(node.body):
        if not isinstance(statement, cst.SimpleStatementLine):
            continue
        for small in statement.body:
            if isinstance(small, cst.Assign) and len(small.targets) == 1:
                target = small.targets[0].target
                if isinstance(target, cst.Name):
                    yield target, None, small.value


def _fields(
    node: cst.ClassDef, classes: dict[str, cst.ClassDef]
) -> Iterator[tuple[cst.Name, cst.BaseExpression, cst.BaseExpression | None]]:
    """The annotated fields along the bases of the module: ``name: T [= value]`` (not
    ``model_config``, ``ClassVar``s or private names); a subclass's own win."""
    found: dict[str, tuple[cst.Name, cst.BaseExpression, cst.BaseExpression | None]] = {}
    for owner in class_mro(node, classes):
        for statement in body_statements(owner.body):
            if not isinstance(statement, cst.SimpleStatementLine):
                continue
            for small in statement.body:
                if not isinstance(small, cst.AnnAssign) or not isinstance(small.target, cst.Name):
                    continue
                name = small.target.value
                annotation = small.annotation.annotation
                if name == "model_config" or name.startswith("_") or _class_var(annotation):
                    continue
                found[name] = (small.target, annotation, small.value)
    yield from found.values()


def _class_var(annotation: cst.BaseExpression) -> bool:
    base = annotation.value if isinstance(annotation, cst.Subscript) else annotation
    name = base.attr.value if isinstance(base, cst.Attribute) else getattr(base, "value", "")
    return name == "ClassVar"


def _name(
    parsed: ParsedModule, value: cst.BaseExpression | None, plain: str, upper: bool
) -> str | None:
    """The variable a field reads: its alias (the whole name) or prefix + field name;
    None when the alias is not a literal."""
    if isinstance(value, cst.Call) and _is_field(parsed, value):
        for arg in value.args:
            if arg.keyword is not None and arg.keyword.value in _ALIASES:
                alias = literal(parsed, arg.value)
                return alias if isinstance(alias, str) else None
    return plain.upper() if upper else plain


def _is_field(parsed: ParsedModule, call: cst.Call) -> bool:
    qualified = qualify(parsed.symbols, call.func) or ""
    return qualified.rsplit(".", 1)[-1] == "Field" and qualified.startswith("pydantic")


def _default(parsed: ParsedModule, value: cst.BaseExpression | None) -> object:
    """A field's default: its value, or ``Field(default=...)`` / ``Field(value)``;
    NO_DEFAULT when it has none (required) or it is computed (``default_factory``)."""
    if value is None:
        return NO_DEFAULT
    if isinstance(value, cst.Call) and _is_field(parsed, value):
        for position, arg in enumerate(value.args):
            if (arg.keyword is None and position == 0) or (
                arg.keyword is not None and arg.keyword.value == "default"
            ):
                return literal(parsed, arg.value, NO_DEFAULT)
        return NO_DEFAULT
    return literal(parsed, value, NO_DEFAULT)


def literal(parsed: ParsedModule, node: cst.BaseExpression, missing: object = None) -> object:
    """A plain literal (or a module constant), else ``missing``."""
    if isinstance(node, cst.Name):
        if node.value in ("True", "False", "None"):
            return {"True": True, "False": False, "None": None}[node.value]
        return parsed.symbols.constants.get(node.value, missing)
    if isinstance(node, cst.SimpleString | cst.Integer | cst.Float):
        evaluated = node.evaluated_value
        return evaluated if isinstance(evaluated, str | int | float) else missing
    if isinstance(node, cst.UnaryOperation) and isinstance(node.operator, cst.Minus):
        inner = literal(parsed, node.expression, missing)
        return -inner if isinstance(inner, int | float) else missing
    return missing


def is_bool(annotation: cst.BaseExpression) -> bool:
    """``bool``, ``bool | None``, ``Optional[bool]``."""
    if isinstance(annotation, cst.Name):
        return annotation.value == "bool"
    if isinstance(annotation, cst.BinaryOperation) and isinstance(annotation.operator, cst.BitOr):
        sides = (annotation.left, annotation.right)
        return any(is_bool(s) for s in sides) and all(
            is_bool(s) or (isinstance(s, cst.Name) and s.value == "None") for s in sides
        )
    if (
        isinstance(annotation, cst.Subscript)
        and isinstance(annotation.value, cst.Name)
        and annotation.value.value == "Optional"
        and len(annotation.slice) == 1
    ):
        inner = annotation.slice[0].slice
        return isinstance(inner, cst.Index) and is_bool(inner.value)
    return False


def _gate(name: str, annotation: cst.BaseExpression, default: object, settings: Settings) -> Gate:
    if is_launch_fact(name, settings.launch_facts):
        return LAUNCH_GATE
    if not is_bool(annotation):
        return VALUE_GATE
    if default is NO_DEFAULT:
        return unknown_gate("the field has no default: the model cannot be built unset")
    if not isinstance(default, bool):
        return unknown_gate(f"its default is {default!r}, not a bool: the code decides")
    polarity = Polarity.DISABLE if says_disable(name) else Polarity.ENABLE
    return Gate(
        kind=GateKind.BOOLEAN,
        default_on=default,
        off_value="0",
        on_value="1",
        off_values=OFF,
        on_values=ON,
        polarity=polarity,
    )


def default_text(value: object) -> str | None:
    if value is NO_DEFAULT or value is None or not isinstance(value, str | bool | int | float):
        return None
    return str(value)
