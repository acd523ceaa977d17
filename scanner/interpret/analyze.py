"""The analysis of one file: a pure function of its text, the options and the wrapper table."""

from __future__ import annotations

from collections.abc import Sequence

import libcst as cst

from scanner.interpret.definition_tables import table_reads
from scanner.interpret.field_loops import field_loop_reads
from scanner.interpret.judge import judged
from scanner.interpret.module import ParsedModule
from scanner.interpret.objects import parse_classes
from scanner.interpret.owners import owner_of
from scanner.interpret.quiet import passed_names
from scanner.interpret.read_names import resolve_names, setter_argument
from scanner.interpret.settings_models import settings_reads
from scanner.interpret.table_loops import loop_sites
from scanner.interpret.values import V
from scanner.model import (
    DynamicRead,
    FileResult,
    ReadKind,
    Site,
    Write,
    WriteKind,
)
from scanner.patterns import dynamic_matches, matches
from scanner.settings import Settings
from scanner.syntax.events import Event
from scanner.syntax.index import ATTRIBUTE, CLASS, FUNCTION, SETTER, WrapperIndex


def analyze(parsed: ParsedModule, index: WrapperIndex, settings: Settings) -> FileResult:
    """Sites, dynamic reads and writes of one parsed module."""
    sites: list[Site] = []
    dynamic: list[DynamicRead] = []
    writes: list[Write] = []
    match = settings.match
    descriptors = descriptor_classes(parsed, index)
    table_sites: list[Site] = []
    table_dynamic: list[DynamicRead] = []
    for event in parsed.events(index):
        names = resolve_names(parsed, event, index)
        resolved = sorted({n.value for n in names if n.known and isinstance(n.value, str)})
        unresolved = [n for n in names if not (n.known and isinstance(n.value, str))]
        if isinstance(event.kind, WriteKind):
            if not resolved and owned_by(parsed, event, index, unresolved, SETTER):
                continue  # a setter's own write: reported at its call sites
            if not resolved and event.unit.method_class in descriptors:
                continue  # a descriptor's own write (``set``): reported where it is used
            value = _written(parsed, event, index)
            targets: list[str | None] = [*resolved] or [None]
            for target in targets:
                if target is None or matches(target, match):
                    writes.append(_write(parsed, event, target, value))
            continue
        if unresolved and not resolved:
            looped = loop_sites(parsed, event, settings) if event.wrapper is None else None
            if looped is not None:  # a loop over a table: a variable per key
                sites.extend(looped)
                continue
            tabled = table_reads(parsed, event, settings) if event.wrapper is not None else None
            if tabled is not None:  # a factory's call: its tables' keys are the variables
                table_sites.extend(tabled[0])
                table_dynamic.extend(tabled[1])
                continue
            if owned_by(parsed, event, index, unresolved, FUNCTION):
                continue  # a wrapper's own read: reported at its call sites
            if owned_by(parsed, event, index, unresolved, SETTER):
                continue  # a setter's read of what it writes: its calls are writes
            if event.unit.method_class in descriptors:
                continue  # a descriptor's own read: reported where it is constructed
            text = parsed.tree.code_for_node(event.node)
            if dynamic_matches(text, match):
                dynamic.append(
                    DynamicRead(
                        path=parsed.rel,
                        line=event.line,
                        column=event.column,
                        expression=text,
                        function=event.function,
                        reason=dynamic_reason(
                            event, unresolved, id(event.node) in parsed.attributes()
                        ),
                        via=event.wrapper.qualname if event.wrapper is not None else None,
                    )
                )
            continue
        quiet = _quiet_here(parsed, event, index)
        for name in resolved:
            if not matches(name, match) or name in quiet:
                continue
            gate, default, decided = judged(parsed, event, name, index, settings)
            sites.append(
                Site(
                    name=name,
                    path=parsed.rel,
                    line=event.line,
                    column=event.column,
                    kind=ReadKind(event.kind),
                    default=default,
                    gate=gate,
                    function=event.function,
                    via=event.wrapper.qualname if event.wrapper is not None else None,
                    target=event.binding.name if event.binding is not None else None,
                    decisions=decided,
                )
            )
    declared, undeclared = settings_reads(parsed, settings)
    fielded, unfielded, covered = field_loop_reads(parsed, settings)
    if covered:  # the calls whose variables are the fields': those are sites already
        dynamic = [d for d in dynamic if (d.line, d.column) not in covered]
    declared = [*declared, *fielded, *table_sites]
    undeclared = [*undeclared, *unfielded, *table_dynamic]
    if declared or undeclared:
        sites = sorted([*sites, *declared], key=lambda s: (s.line, s.column))
        dynamic = sorted([*dynamic, *undeclared], key=lambda d: (d.line, d.column))
    return FileResult(tuple(sites), tuple(dynamic), tuple(writes))


def _quiet_here(parsed: ParsedModule, event: Event, index: WrapperIndex) -> frozenset[str]:
    """The variables a call of a wrapper reads by names of the wrapper's own and gives
    nothing back from (their sites are in its body), less any name its arguments hold."""
    wrapper = event.wrapper
    if wrapper is None or wrapper.kind != FUNCTION or not wrapper.quiet:
        return frozenset()
    assert isinstance(event.node, cst.Call)
    evaluator = parsed.evaluator(index)
    frame = parsed.resolver(event, index)
    values = [evaluator.evaluate(arg.value, frame) for arg in event.node.args]
    if any(not v.known for v in values):
        return frozenset()  # an argument may name anything
    return frozenset(wrapper.quiet) - passed_names(values)


def descriptor_classes(parsed: ParsedModule, index: WrapperIndex) -> frozenset[str]:
    """The qualified classes of this module that descriptors are built from (the
    descriptor's class and its bases)."""
    found: set[str] = set()
    prefix = f"{parsed.module_name}." if parsed.module_name else ""
    for wrapper in index.wrappers.values():
        if wrapper.kind == CLASS and wrapper.path == parsed.rel:
            found.update(prefix + name for name in parse_classes(wrapper.source))
    return frozenset(found)


def owned_by(
    parsed: ParsedModule, event: Event, index: WrapperIndex, names: Sequence[V], kind: str
) -> bool:
    """Whether an event's name is the parameter of a wrapper (or setter) of the index:
    the read is then reported where the wrapper is called, not here."""
    owner = owner_of(parsed, event, {p for n in names for p in n.params})
    if owner is None:
        return False
    module = parsed.module_name
    qualname = f"{module}.{owner.qualname}" if module else owner.qualname
    return qualname in (index.setters if kind == SETTER else index.wrappers)


def dynamic_reason(event: Event, names: Sequence[V], in_class_body: bool = False) -> str:
    """Why an event's variable name cannot be named statically."""
    wrapper = event.wrapper
    if wrapper is not None and event.field is not None:
        where = f"{wrapper.registry_class} ({wrapper.path}:{wrapper.line})"
        return f"{event.field} is no field of {where} whose variable the scan could read"
    if wrapper is not None and wrapper.name_param == ATTRIBUTE:
        if not in_class_body:
            return (
                f"{wrapper.short_name}() takes its name from the attribute it is assigned to "
                "in a class body, and this call is not one"
            )
        return f"{wrapper.short_name}() builds its name from values not known statically"
    if wrapper is not None:
        return f"the name passed to {wrapper.short_name}() is not known here"
    node = event.name
    if node is None:
        return "the read has no name argument"
    if isinstance(node, cst.Name):
        if any(n.params for n in names):
            return f"the name is the parameter {node.value!r}, and no call passes a known value"
        if event.loops:
            return f"the name comes from {node.value!r}, a loop over data not known statically"
        return f"the name comes from {node.value!r}, which is not a constant"
    if isinstance(node, cst.FormattedString | cst.BinaryOperation | cst.ConcatenatedString):
        return "the name is built at run time from values not known statically"
    if isinstance(node, cst.Attribute):
        return "the name is an attribute whose value is not known statically"
    if isinstance(node, cst.Call):
        return "the name is computed by a call"
    return "the name is computed at run time"


def _written(parsed: ParsedModule, event: Event, index: WrapperIndex) -> str | None:
    """The value a write sets, when it is a known string (a registry's field set to a
    value: ``envs.X.set(True)`` writes ``str(True)``)."""
    frame = parsed.resolver(event, index)
    evaluator = parsed.evaluator(index)
    if event.field is not None:
        if event.value is None:
            return None
        value = evaluator.evaluate(event.value, frame)
        plain = value.value if value.plain else None
        return str(plain) if isinstance(plain, str | bool | int | float) else None
    if event.wrapper is not None:
        value = setter_argument(evaluator, event, frame, event.wrapper.value_param)
    elif event.value is not None:
        value = evaluator.evaluate(event.value, frame)
    else:
        return None
    return value.value if value.known and isinstance(value.value, str) else None


def _write(parsed: ParsedModule, event: Event, name: str | None, value: str | None) -> Write:
    assert isinstance(event.kind, WriteKind)
    return Write(
        name=name,
        path=parsed.rel,
        line=event.line,
        column=event.column,
        kind=event.kind,
        function=event.function,
        value=value,
        via=event.wrapper.qualname if event.wrapper is not None else None,
    )
