"""A value handed to torch.compile as its backend: a choice of how the graph is run.

``backend = os.environ.get("X_COMPILE_BACKEND", "inductor")`` then
``torch.compile(fn, backend=backend)`` (or ``module.compile(backend=backend)``, or
``torch._dynamo.optimize(backend)``) decides no branch of the tree: the value picks the
compiler dynamo hands the captured graph to. Inductor (the default backend) generates Triton
kernels and may tune them; the ``eager`` backend runs the captured graph with torch's own
eager kernels (pytorch/pytorch torch/_dynamo/backends/debugging.py, ``eager``: it returns
the graph's ``forward``). The knob is a kernel choice whose plain value is ``eager``, with
the compile call as its evidence.
"""

from __future__ import annotations

import ast
from collections.abc import Iterator

from scanner.languages import Language
from scanner.model import GateKind, Knob, Role, Site
from scanner.reach.modules import Module, Tree
from scanner.roles import Evidence

PLAIN = "eager"
# Backends that run torch's eager kernels: the unset value already is the plain path.
PLAIN_BACKENDS = frozenset({"eager", "aot_eager"})
_COMPILERS = frozenset({"torch.compile", "torch._dynamo.optimize"})
_POSITIONAL = frozenset({"torch._dynamo.optimize"})  # the backend is its first argument


def compile_backend(knob: Knob, tree: Tree) -> Evidence | None:
    """Kernel, for a value knob whose value (with a default that names a compiler) is handed
    as the backend of a compile call; None for any other knob."""
    if knob.kind is not GateKind.VALUE:
        return None
    python = [s for s in knob.sites if s.language is Language.PYTHON]
    defaults = {s.default for s in python}
    if len(defaults) != 1:
        return None
    default = defaults.pop()
    if not default or default in PLAIN_BACKENDS:
        return None  # unset, it compiles with no backend named, or runs eager kernels already
    for site in python:
        module = tree.module_at(site.path)
        read = _read_call(module, site) if module is not None else None
        if module is None or read is None:
            continue
        for call, what in _handed(module, read):
            return Evidence(
                Role.KERNEL,
                f"unset, its value {default!r} ({site.path}:{site.line}) is handed as the "
                f"backend of {what} at {module.rel}:{call.lineno}: a compiled path (Inductor "
                f"generates and may tune Triton kernels); {knob.name}={PLAIN!r} runs the "
                "captured graph with torch's eager kernels",
                value=PLAIN,
                default_reaches=True,
            )
    return None


def _read_call(module: Module, site: Site) -> ast.Call | None:
    """The call node of the site's read (``os.environ.get(N, d)``)."""
    for node in module.locate.nodes_on(site.line):
        if (
            isinstance(node, ast.Call)
            and node.lineno == site.line
            and module.column(node.lineno, node.col_offset) == site.column
        ):
            return node
    return None


def _handed(module: Module, read: ast.expr) -> Iterator[tuple[ast.Call, str]]:
    """The compile calls ``read``'s value is handed to as the backend: directly, or through
    the one name it is bound to (a local of its function, or a module name)."""
    found = _backend_of(module, read)
    if found is not None:
        yield found
        return
    parent = module.parent(read)
    if not (
        isinstance(parent, ast.Assign | ast.AnnAssign)
        and parent.value is read
        and len(targets := _targets(parent)) == 1
        and isinstance(targets[0], ast.Name)
    ):
        return
    name = targets[0].id
    function = module.function_node_around(parent)
    for load in module.loads_named(name):
        if not isinstance(load, ast.Name):
            continue
        if function is not None:
            if module.function_node_around(load) is not function:
                continue
        elif module.resolve(load) != module.qualified(name):
            continue
        found = _backend_of(module, load)
        if found is not None:
            yield found


def _targets(node: ast.Assign | ast.AnnAssign) -> list[ast.expr]:
    return node.targets if isinstance(node, ast.Assign) else [node.target]


def _backend_of(module: Module, node: ast.expr) -> tuple[ast.Call, str] | None:
    """The compile call ``node`` is the backend of, with how the evidence shows it."""
    parent = module.parent(node)
    if isinstance(parent, ast.keyword) and parent.arg == "backend":
        call = module.parent(parent)
    elif isinstance(parent, ast.Call) and parent.args and parent.args[0] is node:
        call = parent
        if module.resolve_api(call.func) not in _POSITIONAL:
            return None
    else:
        return None
    if not isinstance(call, ast.Call):
        return None
    name = module.resolve_api(call.func)
    if name in _COMPILERS:
        return call, name
    if (
        isinstance(call.func, ast.Attribute)
        and call.func.attr == "compile"
        and (name is None or not module.in_tree(name))
    ):
        return call, "torch.nn.Module.compile()"
    return None
