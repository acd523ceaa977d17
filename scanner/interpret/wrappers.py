"""Finding wrappers and setters: callables whose parameter names the variable they touch.

``def env_flag(name, default=False): return os.environ.get(name, ...)`` is a
wrapper, and so is ``def fusion_on(name): return env_flag(name, default=True)``
once ``env_flag`` is known: discovery runs to a fixed point over the tree. The
function that owns the parameter may be a method, a function nested in another
(a local helper), or a closure factory whose inner function reads the factory's
parameter. A class whose constructor keeps its parameter on ``self`` and whose
methods read the variable with it is a descriptor: its constructor calls are reads.
A function that writes the variable its parameter names is a setter. One that also
reads it is a wrapper too, unless it writes whatever the variable held and gives
nothing back that depends on it (it reads only to restore the old value or to log it).
"""

from __future__ import annotations

from dataclasses import replace
from functools import partial

import libcst as cst

from scanner.interpret.calls import call_function, call_wrapper
from scanner.interpret.classify import outcome_key
from scanner.interpret.evaluate import Evaluator
from scanner.interpret.frames import Frame
from scanner.interpret.module import ParsedModule
from scanner.interpret.objects import ClassModel, Instance
from scanner.interpret.owners import Owner, owner_of
from scanner.interpret.probe import Probe
from scanner.interpret.quiet import quiet_names
from scanner.interpret.read_names import resolve_names
from scanner.interpret.registries import discover_registries
from scanner.interpret.values import UNKNOWN, V
from scanner.model import WriteKind
from scanner.syntax.events import Event
from scanner.syntax.index import ATTRIBUTE, CLASS, FUNCTION, SETTER, Wrapper, WrapperIndex
from scanner.syntax.scopes import param_list
from scanner.syntax.walk import nodes


def discover(parsed: ParsedModule, index: WrapperIndex) -> list[Wrapper]:
    """The wrappers and setters defined in ``parsed``, given those known so far."""
    found: dict[tuple[str, str], Wrapper] = {}
    always_written: set[str] = set()  # setters that write whatever the variable held
    events = parsed.events(index)
    resolved = [resolve_names(parsed, event, index) for event in events]
    for event, names in zip(events, resolved, strict=True):
        if event.unit.scope is None:
            continue
        depends: set[str] = set()
        if any(n.known and isinstance(n.value, str) for n in names):
            continue
        for name in names:
            depends.update(name.params)
        owner = owner_of(parsed, event, depends)
        if owner is None:
            continue
        kind = SETTER if isinstance(event.kind, WriteKind) else FUNCTION
        qualname = (
            f"{parsed.module_name}.{owner.qualname}" if parsed.module_name else owner.qualname
        )
        if kind == SETTER and _unconditional(event, owner.function):
            always_written.add(qualname)
        if (qualname, kind) in found:
            continue
        found[(qualname, kind)] = _function(parsed, event, owner, qualname, kind)
        if kind == FUNCTION:
            quiet = quiet_names(owner.function, events, resolved)
            if quiet:
                found[(qualname, kind)] = replace(found[(qualname, kind)], quiet=quiet)
    for qualname in always_written:
        reader = found.get((qualname, FUNCTION))
        if reader is not None and not _answers(parsed, index, reader):
            del found[(qualname, FUNCTION)]  # its reads are part of its write
    for wrapper in _descriptors(parsed, index, events):
        found[(wrapper.qualname, wrapper.kind)] = wrapper
    exported = partial(_exported_by, parsed)
    imported = partial(_imported_by, parsed)
    for registry in discover_registries(parsed, events, resolved, exported, imported):
        found[(registry.qualname, registry.kind)] = registry
    return list(found.values())


_CONDITIONAL = (cst.If, cst.For, cst.While, cst.ExceptHandler, cst.Match)


def _unconditional(event: Event, function: cst.FunctionDef) -> bool:
    """Whether a write runs whenever ``function`` runs to its end: under no branch, loop
    or exception handler (``if name not in os.environ: os.environ[name] = v`` writes only
    for some values of the variable, which makes reading it part of what it does)."""
    return all(
        id(node) not in event.target
        for node in nodes(function.body)
        if isinstance(node, _CONDITIONAL)
    )


_PROBED = "\0probed"  # a variable name no code spells


def _answers(parsed: ParsedModule, index: WrapperIndex, wrapper: Wrapper) -> bool:
    """Whether a call of ``wrapper`` can give back something that depends on the variable
    it reads: it raises or asserts (``check_and_set`` raises on a value already set
    otherwise), or it returns differently with the variable unset and set, or that cannot
    be told."""
    function = wrapper.function()
    if any(isinstance(node, cst.Assert | cst.Raise) for node in nodes(function)):
        return True
    params = [p.name.value for p in param_list(function.params)]
    given = params[1:] if wrapper.method else params
    args = [cst.Arg(cst.Name(p), keyword=cst.Name(p)) for p in given]
    call = cst.Call(cst.Name(wrapper.short_name), args)
    returned: list[V] = []
    for value in (None, "1"):
        evaluator = parsed.evaluator(index, Probe(knob=_PROBED, value=value))
        frame = Frame(
            parsed.symbols,
            {p: V(value=_PROBED if p == wrapper.name_param else UNKNOWN) for p in given},
        )
        returned.append(_call(evaluator, wrapper, call, frame))
        if not any(n.value == _PROBED for n in evaluator.seen.names):
            return True  # it reads the variable by a name built from the parameter
    unset, set_ = returned
    return not (unset.known and set_.known and outcome_key(unset.value) == outcome_key(set_.value))


def _call(evaluator: Evaluator, wrapper: Wrapper, call: cst.Call, frame: Frame) -> V:
    return evaluator.call(
        lambda: call_wrapper(evaluator, wrapper, call, frame, bound=wrapper.method)
    )


def _function(
    parsed: ParsedModule, event: Event, owner: Owner, qualname: str, kind: str
) -> Wrapper:
    scope = owner.function
    params = param_list(scope.params)
    decorators = {d.decorator.value for d in scope.decorators if isinstance(d.decorator, cst.Name)}
    static = "staticmethod" in decorators
    names = {node.value for node in nodes(scope) if isinstance(node, cst.Name)}
    pattern = None
    if event.name is not None and not (
        isinstance(event.name, cst.Name) and event.name.value == owner.param
    ):
        pattern = parsed.tree.code_for_node(event.name)
    value_param = None
    if kind == SETTER and isinstance(event.value, cst.Name):
        declared = {p.name.value for p in params}
        value_param = event.value.value if event.value.value in declared else None
    return Wrapper(
        qualname=qualname,
        path=parsed.rel,
        line=parsed.def_line(scope),
        name_param=owner.param,
        method=owner.method_class is not None and not static and bool(params),
        classmethod=owner.method_class is not None and "classmethod" in decorators,
        source=parsed.tree.code_for_node(scope.with_changes(leading_lines=())),
        symbols=parsed.symbols.restricted(names),
        kind=kind,
        value_param=value_param,
        pattern=pattern if kind == FUNCTION and event.wrapper is None else None,
        read_line=event.line,
        read_column=event.column,
        exported_by=_exported_by(parsed, qualname),
    )


def _imported_by(parsed: ParsedModule, qualname: str) -> tuple[str, ...]:
    """The packages that re-export a module-level instance of ``parsed`` through a module
    that imports it."""
    module, _, name = qualname.rpartition(".")
    if parsed.loader is None or module != parsed.module_name:
        return ()
    return parsed.loader.imported_by(module, name)


def _exported_by(parsed: ParsedModule, qualname: str) -> tuple[str, ...]:
    """The packages that re-export a module-level function or class of ``parsed``."""
    module, _, name = qualname.rpartition(".")
    if parsed.loader is None or module != parsed.module_name:
        return ()
    return parsed.loader.exported_by(module, name)


def _descriptors(parsed: ParsedModule, index: WrapperIndex, events: list[Event]) -> list[Wrapper]:
    """Classes whose constructor's parameter names the variable their methods read."""
    classes = {s.name.value: s for s in parsed.tree.body if isinstance(s, cst.ClassDef)}
    readers: dict[str, set[str]] = {}  # class name -> methods holding an unnamed read
    for event in events:
        method_class = event.unit.method_class
        scope = event.unit.scope
        if not event.is_read or method_class is None or not isinstance(scope, cst.FunctionDef):
            continue
        if not (_mentions_self(event) or scope.name.value == "__init__"):
            continue
        readers.setdefault(method_class.rsplit(".", 1)[-1], set()).add(scope.name.value)
    if not readers:
        return []
    found: list[Wrapper] = []
    for name in classes:
        model = ClassModel(name, classes, parsed.symbols)
        order = model.mro()
        methods = sorted({m for owner in order for m in readers.get(owner, ())})
        if not methods:
            continue
        descriptor = _descriptor(parsed, index, model, methods)
        if descriptor is not None:
            found.append(descriptor)
    return found


def _mentions_self(event: Event) -> bool:
    roots = [event.name] if event.name is not None else []
    if event.wrapper is not None and isinstance(event.node, cst.Call):
        roots = [arg.value for arg in event.node.args]
    return any(isinstance(n, cst.Name) and n.value == "self" for root in roots for n in nodes(root))


def _descriptor(
    parsed: ParsedModule, index: WrapperIndex, model: ClassModel, methods: list[str]
) -> Wrapper | None:
    """The class ``model`` as a descriptor, if one of its ``methods`` reads the variable by
    the attribute name its ``__set_name__`` keeps (sglang's ``EnvField``: the variable is
    the attribute an instance is assigned to in a class body), or by a parameter its
    constructor keeps (Triton's ``env_bool("TRITON_DEBUG")``)."""
    init = model.method("__init__")
    params = [p.name.value for p in param_list(init[1].params)][1:] if init else []
    set_name = model.method("__set_name__")
    if set_name is not None and len(param_list(set_name[1].params)) < 3:
        set_name = None  # not the protocol's (self, owner, name)
    if not params and set_name is None:
        return None
    evaluator = parsed.evaluator(index)
    instance = V(value=Instance(model))
    frame = Frame(parsed.symbols, {p: V(value=UNKNOWN, params=frozenset({p})) for p in params})
    if init is not None:
        call = cst.Call(cst.Name(model.name), [cst.Arg(cst.Name(p)) for p in params])
        evaluator.call(
            lambda: call_function(
                evaluator, init[1], call, frame, model.symbols, self_value=instance, owner=init[0]
            )
        )
    depends = {p for name in evaluator.seen.names for p in name.params if p in params}
    if depends:  # the constructor itself reads the variable its parameter names
        return _class(parsed, model, next(p for p in params if p in depends), "__init__")
    if set_name is not None:
        marked = V(value=UNKNOWN, params=frozenset({ATTRIBUTE}))
        attribute = Frame(parsed.symbols, {ATTRIBUTE: marked})
        arguments = [cst.Arg(cst.Name("None")), cst.Arg(cst.Name(ATTRIBUTE))]
        given = cst.Call(cst.Name(ATTRIBUTE), arguments)
        evaluator.call(
            lambda: call_function(
                evaluator,
                set_name[1],
                given,
                attribute,
                model.symbols,
                self_value=instance,
                owner=set_name[0],
            )
        )
        found = _reader(evaluator, model, methods, frame, instance, (ATTRIBUTE,))
        if found is not None:
            return _class(parsed, model, ATTRIBUTE, found[1])
    found = _reader(evaluator, model, methods, frame, instance, params)
    return _class(parsed, model, found[0], found[1]) if found is not None else None


def _reader(
    evaluator: Evaluator,
    model: ClassModel,
    methods: list[str],
    frame: Frame,
    instance: V,
    params: tuple[str, ...] | list[str],
) -> tuple[str, str] | None:
    """The first of ``methods`` that reads the variable by one of ``params`` (what the
    instance keeps), and that parameter."""
    for method in methods:
        found = model.method(method)
        if found is None:
            continue
        evaluator.seen.names.clear()
        evaluator.call(
            lambda found=found: call_function(  # type: ignore[misc]
                evaluator, found[1], None, frame, model.symbols, self_value=instance, owner=found[0]
            )
        )
        depends = {p for name in evaluator.seen.names for p in name.params if p in params}
        if depends:
            return next(p for p in params if p in depends), method
    return None


def _class(parsed: ParsedModule, model: ClassModel, param: str, reader: str) -> Wrapper:
    order = model.mro()
    source = "\n\n".join(
        parsed.tree.code_for_node(model.classes[c].with_changes(leading_lines=(), decorators=()))
        for c in reversed(order)
    )
    names = {
        node.value for c in order for node in nodes(model.classes[c]) if isinstance(node, cst.Name)
    }
    names.update(order)
    qualname = f"{parsed.module_name}.{model.name}" if parsed.module_name else model.name
    first = model.classes[model.name]
    return Wrapper(
        qualname=qualname,
        path=parsed.rel,
        line=parsed.class_line(first),
        name_param=param,
        method=False,
        source=source,
        symbols=parsed.symbols.restricted(names),
        kind=CLASS,
        reader=reader,
        exported_by=_exported_by(parsed, qualname),
    )
