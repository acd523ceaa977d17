"""Finding wrapper functions: functions whose parameter names the variable they read.

``def env_flag(name, default=False): return os.environ.get(name, ...)`` is a
wrapper, and so is ``def fusion_on(name): return env_flag(name, default=True)``
once ``env_flag`` is known: discovery runs to a fixed point over the tree.
"""

from __future__ import annotations

import libcst as cst

from scanner.interpret.analyze import resolve_names, wrapper_scope
from scanner.interpret.module import ParsedModule
from scanner.syntax.index import Wrapper, WrapperIndex
from scanner.syntax.scopes import param_list
from scanner.syntax.walk import nodes


def discover(parsed: ParsedModule, index: WrapperIndex) -> list[Wrapper]:
    """The wrappers defined in ``parsed``, given the wrappers known so far."""
    found: dict[str, Wrapper] = {}
    for event in parsed.events(index):
        scope = wrapper_scope(event)
        if not event.is_read or scope is None:
            continue
        params = [p.name.value for p in param_list(scope.params)]
        depends: set[str] = set()
        for name in resolve_names(parsed, event, index):
            if not (name.known and isinstance(name.value, str)):
                depends.update(name.params)
        name_param = next((p for p in params if p in depends), None)
        if name_param is None:
            continue
        qualname = (
            f"{parsed.module_name}.{event.function}" if parsed.module_name else event.function
        )
        if qualname in found:
            continue
        found[qualname] = _wrapper(parsed, scope, qualname, name_param, event.unit.method_class)
    return list(found.values())


def _wrapper(
    parsed: ParsedModule,
    scope: cst.FunctionDef,
    qualname: str,
    name_param: str,
    method_class: str | None,
) -> Wrapper:
    params = param_list(scope.params)
    static = any(
        isinstance(d.decorator, cst.Name) and d.decorator.value == "staticmethod"
        for d in scope.decorators
    )
    names = {node.value for node in nodes(scope) if isinstance(node, cst.Name)}
    return Wrapper(
        qualname=qualname,
        path=parsed.rel,
        line=parsed.def_line(scope),
        name_param=name_param,
        method=method_class is not None and not static and bool(params),
        source=parsed.tree.code_for_node(scope.with_changes(leading_lines=())),
        symbols=parsed.symbols.restricted(names),
    )
