"""What a piece of code does that makes a gate a kernel choice or a deterministic mode.

A *mark* is code evidence, found with ``ast`` in the statements a branch runs and the
functions it calls: a ``@triton.jit`` or ``@triton.autotune`` function, ``triton.Config``
lists and ``do_bench`` tuning, ``torch.compile`` and dynamo, CUDA graph capture, custom
ops, atomics (``tl.atomic_*``, ``index_add_``, ``scatter_add_``), a reduction split in
parts the run counts (``scanner.reach.split_reduction``), an entry point of a
known kernel library (``scanner.reach.libraries``), or a call that makes the run
deterministic (``torch.use_deterministic_algorithms(True)``, ``deterministic=True``, a
determinism setting of the stack written into the environment).
"""

from __future__ import annotations

import ast
from dataclasses import dataclass
from enum import Enum

from scanner.determinism import SETTINGS
from scanner.reach.integer_sums import adds_integers
from scanner.reach.jax_calls import ffi_primitive
from scanner.reach.libraries import library_of
from scanner.reach.modules import Module
from scanner.reach.quantizers import QUANTIZERS
from scanner.source.ast_walk import walk


class MarkKind(str, Enum):
    """What a mark says the code does."""

    TRITON = "a Triton kernel"
    TILE = "a cuTile kernel"
    FLYDSL = "a FlyDSL kernel"
    AUTOTUNE = "autotuning"
    COMPILE = "a compiled path"
    GRAPH = "CUDA graph capture"
    CUSTOM_OP = "a custom op"
    ATOMIC = "atomics"
    SPLIT = "a split reduction"
    LIBRARY = "a fused kernel library"
    DETERMINISM = "a deterministic mode"
    QUANTIZER = "a quantizer of weights"  # scanner.reach.quantizers: no kernel
    STREAM = "work on a CUDA stream of its own"  # no kernel, but no plain path either


KERNEL_MARKS = frozenset(MarkKind) - {MarkKind.DETERMINISM, MarkKind.QUANTIZER, MarkKind.STREAM}


@dataclass(frozen=True, slots=True)
class Mark:
    """One piece of code evidence, where it is written."""

    kind: MarkKind
    what: str  # as the evidence shows it: "@triton.jit _hc_kernel", "torch.compile"
    path: str
    line: int

    def shown(self) -> str:
        return f"{self.what} at {self.path}:{self.line}"


_TRITON_DECORATORS = {
    "triton.jit": MarkKind.TRITON,
    "triton.language.jit": MarkKind.TRITON,
    "triton.autotune": MarkKind.AUTOTUNE,
    "triton.heuristics": MarkKind.TRITON,
    "triton.experimental.gluon.jit": MarkKind.TRITON,
    "triton.experimental.gluon.language.jit": MarkKind.TRITON,
    "torch.compile": MarkKind.COMPILE,
    # ``@torch.library.custom_op`` only registers the function it decorates as an op (for
    # torch.compile to trace): what the op runs is its body, which a call follows. A
    # ``triton_op`` wraps Triton kernels by its contract.
    "torch.library.triton_op": MarkKind.CUSTOM_OP,
    "torch._library.triton.triton_op": MarkKind.CUSTOM_OP,
    # AITER's own kernels: the decorated stub calls the function of the same name in a
    # module JIT-built from its HIP/C++ sources and loaded (ROCm/aiter aiter/jit/core.py,
    # compile_ops); seen from outside the tree, AITER is a library (libraries.py).
    "aiter.jit.core.compile_ops": MarkKind.CUSTOM_OP,
    # NVIDIA cuTile Python (https://github.com/NVIDIA/cutile-python): ``@ct.kernel`` makes a
    # tile kernel, which ``ct.launch(stream, grid, kernel, args)`` runs.
    "cuda.tile.kernel": MarkKind.TILE,
    # ROCm FlyDSL (https://github.com/ROCm/FlyDSL): ``@flyc.kernel`` makes a GPU kernel of a
    # Python function the tree holds, which FlyDSL traces to MLIR and compiles.
    "flydsl.compiler.kernel": MarkKind.FLYDSL,
    # Helion (https://github.com/pytorch/helion): ``@helion.kernel`` (``helion.jit`` is its
    # alias) makes a Kernel of the function, which Helion lowers to a Triton kernel and, with
    # no config given, autotunes (pytorch/helion ef091f4 helion/__init__.py:16-17,
    # helion/runtime/kernel.py:2677-2730, :2464-2478).
    "helion.kernel": MarkKind.TRITON,
    "helion.jit": MarkKind.TRITON,
    "helion.runtime.kernel": MarkKind.TRITON,
    "helion.runtime.kernel.kernel": MarkKind.TRITON,
}
# TorchScript (``torch.jit.script``, ``torch.jit.trace``) is no mark: the scripted graph runs
# torch's own ops, and its fusers (NNC, nvFuser) fuse pointwise ops by fixed rules and time
# nothing, so every run repeats it. torch.compile is: Inductor generates Triton kernels and keeps
# the config of each that ran fastest when timed on the device (torch 2.13
# torch/_inductor/runtime/triton_heuristics.py:1477 benchmark_all_configs; config.py:1007-1009,
# "a deterministic mode that skips any on device benchmarking").
_CALLS = {
    "torch.compile": MarkKind.COMPILE,
    "torch._dynamo.optimize": MarkKind.COMPILE,
    "torch.cuda.graph": MarkKind.GRAPH,
    "torch.cuda.CUDAGraph": MarkKind.GRAPH,
    "torch.cuda.make_graphed_callables": MarkKind.GRAPH,
    "torch.cuda.graphs.graph": MarkKind.GRAPH,
    "torch.cuda.graphs.CUDAGraph": MarkKind.GRAPH,
    "triton.autotune": MarkKind.AUTOTUNE,
    "triton.testing.do_bench": MarkKind.AUTOTUNE,
    "triton.testing.do_bench_cudagraph": MarkKind.AUTOTUNE,
    "cuda.tile.launch": MarkKind.TILE,
    # cuTile's tuner times each config on the GPU and keeps the fastest (cutile-python
    # cuda/tile/tune: exhaustive_search).
    "cuda.tile.tune.exhaustive_search": MarkKind.AUTOTUNE,
    "torch.index_add": MarkKind.ATOMIC,
    "torch.scatter_add": MarkKind.ATOMIC,
    "torch.use_deterministic_algorithms": MarkKind.DETERMINISM,
    # Work queued on a side stream overlaps the compute stream: its order against the
    # compute stream's work is what the code's waits make it, which the scan cannot check
    # (https://docs.pytorch.org/docs/stable/notes/cuda.html#cuda-streams).
    "torch.cuda.stream": MarkKind.STREAM,
    "torch.cuda.Stream": MarkKind.STREAM,
    "torch.cuda.StreamContext": MarkKind.STREAM,
}
# PyTorch's TunableOp: ``enable()`` turns it on, ``tuning_enable()`` lets it time every GEMM
# algorithm of rocBLAS / hipBLASLt (cuBLAS(Lt) on CUDA) and keep the fastest, each with
# ``val=True`` by default (https://docs.pytorch.org/docs/stable/cuda.tunable.html); called
# with False, they turn it off.
_TUNABLE = frozenset({"torch.cuda.tunable.enable", "torch.cuda.tunable.tuning_enable"})
_ATOMIC_METHODS = frozenset({"index_add_", "scatter_add_", "scatter_reduce_", "index_reduce_"})
# Triton's tl.atomic_*, and cuTile's ct.atomic_add / atomic_cas / ... (cutile-python
# cuda/tile: the atomic operations on an array, https://docs.nvidia.com/cuda/cutile-python/).
_TRITON_ATOMICS = ("triton.language.atomic_", "tl.atomic_", "cuda.tile.atomic_")
# FlyDSL is a kernel language, not a package of kernels: its calls (``fx.load``,
# ``flyc.compile``, ``rocdl.*``, ``llvm.*``) are the kernel code the tree writes.
_FLYDSL = "flydsl."
_FLYDSL_RUNTIME = "flydsl.runtime."  # questions to the machine (``get_rocm_arch``), no kernel
_AUTOTUNER = "triton.runtime.autotuner.Autotuner."
_DETERMINISTIC_FLAGS = frozenset(
    {"torch.backends.cudnn.deterministic", "torch.backends.cuda.matmul.deterministic"}
)


def decorator_marks(module: Module, node: ast.FunctionDef | ast.AsyncFunctionDef) -> list[Mark]:
    """The marks a function's decorators give it (``@triton.jit`` makes it a kernel)."""
    found = []
    for decorator in node.decorator_list:
        target = decorator.func if isinstance(decorator, ast.Call) else decorator
        name = module.resolve_api(target)
        kind = _TRITON_DECORATORS.get(name or "")
        if kind is not None:
            found.append(Mark(kind, f"@{name} {node.name}", module.rel, node.lineno))
    return found


def node_marks(module: Module, node: ast.AST, *, in_loop: bool = False) -> list[Mark]:
    """The marks of one node itself (not of what it calls); ``in_loop``: the node runs in a
    loop's body (``configs.append(triton.Config(...))`` builds configs to tune over)."""
    if isinstance(node, ast.Call):
        if in_loop and _is_config(module, node):
            return [
                Mark(
                    MarkKind.AUTOTUNE,
                    "triton.Config built in a loop, to tune over",
                    module.rel,
                    node.lineno,
                )
            ]
        return _call_marks(module, node)
    if isinstance(node, ast.Assign | ast.AnnAssign):
        return _assign_marks(module, node)
    if isinstance(node, ast.List | ast.Tuple | ast.ListComp) and _configs(module, node):
        return [
            Mark(MarkKind.AUTOTUNE, "a list of triton.Config to tune over", module.rel, node.lineno)
        ]
    return []


def _call_marks(module: Module, call: ast.Call) -> list[Mark]:
    found: list[Mark] = []
    name = module.resolve_api(call.func)
    line = call.lineno
    if name is not None:
        kind = _CALLS.get(name)
        if kind is MarkKind.DETERMINISM:
            if _first_true(call):
                found.append(Mark(kind, f"{name}(True)", module.rel, line))
        elif kind is not None:
            found.append(Mark(kind, name, module.rel, line))
        elif name in _TUNABLE:
            if _turned_on(call, "val"):
                found.append(Mark(MarkKind.AUTOTUNE, f"{name}()", module.rel, line))
        elif name.startswith(_TRITON_ATOMICS):
            found.append(Mark(MarkKind.ATOMIC, name, module.rel, line))
        elif name.startswith(_FLYDSL):
            if not name.startswith(_FLYDSL_RUNTIME):
                found.append(_flydsl_mark(module, name, line))
        elif name.startswith("torch.optim.") and _keyword_true(call, "fused"):
            # one fused kernel over every parameter, where foreach/for-loop runs torch's ops
            found.append(Mark(MarkKind.LIBRARY, f"{name}(fused=True)", module.rel, line))
        elif name in _LAYOUT_OPS:
            pass  # converts a weight's layout once, computes nothing
        elif name in QUANTIZERS:
            found.append(Mark(MarkKind.QUANTIZER, name, module.rel, line))
        elif name.startswith("torch.ops.") and not name.startswith("torch.ops.aten."):
            found.append(Mark(MarkKind.CUSTOM_OP, name, module.rel, line))
        elif not module.in_tree(name):
            library = library_of(name)
            built = module.extension(name) if library is None else None
            if library is not None:
                found.append(Mark(MarkKind.LIBRARY, f"{library} ({name})", module.rel, line))
            elif built is not None:
                shown = f"{name}, of the CUDA extension {built[0]} the tree builds ({built[1]})"
                found.append(Mark(MarkKind.CUSTOM_OP, shown, module.rel, line))
    elif isinstance(call.func, ast.Attribute):
        method = call.func.attr
        if (
            method in _ATOMIC_METHODS
            or (method == "index_put_" and _keyword_true(call, "accumulate"))
        ) and not adds_integers(module, call):
            found.append(Mark(MarkKind.ATOMIC, f".{method}()", module.rel, line))
        elif method == "compile" and _module_compile(call):
            found.append(Mark(MarkKind.COMPILE, "torch.nn.Module.compile()", module.rel, line))
    elif isinstance(call.func, ast.Call):
        op = _op_by_name(module, call.func)
        if op is not None:
            found.append(Mark(MarkKind.CUSTOM_OP, op, module.rel, line))
    if not found and (primitive := ffi_primitive(module, call)) is not None:
        found.append(
            Mark(MarkKind.CUSTOM_OP, f"a JAX FFI custom call ({primitive})", module.rel, line)
        )
    if _keyword_true(call, "deterministic"):
        shown = name or _written(call.func)
        found.append(Mark(MarkKind.DETERMINISM, f"{shown}(deterministic=True)", module.rel, line))
    return found


def _flydsl_mark(module: Module, name: str, line: int) -> Mark:
    """A call of FlyDSL's as the code it is: an atomic operation (``rocdl.*atomic*``,
    ``llvm.AtomicRMWOp``, ``fx.atomic_add``), inline assembly (code the tree does not show
    as a kernel language, read as a library's), or FlyDSL kernel code."""
    last = name.rsplit(".", 1)[-1].lower()
    if "atomic" in last and not last.endswith("ordering"):
        return Mark(MarkKind.ATOMIC, name, module.rel, line)
    if "inline_asm" in last or "inlineasm" in last:
        return Mark(MarkKind.LIBRARY, f"FlyDSL inline assembly ({name})", module.rel, line)
    return Mark(MarkKind.FLYDSL, name, module.rel, line)


def _op_by_name(module: Module, func: ast.Call) -> str | None:
    """``getattr(torch.ops.ns, name)``, an op of a custom namespace looked up by a name the
    code holds, as it is shown (``torch.ops.ns.<_OP>``); None otherwise."""
    if not (
        isinstance(func.func, ast.Name)
        and func.func.id == "getattr"
        and len(func.args) >= 2
        and isinstance(func.args[0], ast.Attribute)
    ):
        return None
    namespace = module.resolve(func.args[0])
    if namespace is None or not namespace.startswith("torch.ops.") or namespace.count(".") != 2:
        return None
    if namespace == "torch.ops.aten" or _registers_itself(module, func):
        return None
    return f"{namespace}.<{ast.unparse(func.args[1])}>"


def _registers_itself(module: Module, lookup: ast.Call) -> bool:
    """Whether the op ``lookup`` names is the function a decorator around it wraps: a
    function holding the lookup registers its parameter under the same name
    (``lib.impl(name, fn, ...)``, torch.library.Library.impl, https://pytorch.org/docs/
    stable/library.html#torch.library.Library.impl), so the op runs that function, whose
    code is walked where it is called (unslothai unsloth kernels/fp8.py:55-83: the op
    stands in for it under torch.compile alone)."""
    key = lookup.args[1]
    if not isinstance(key, ast.Name):
        return False
    for outer in module.ancestors(lookup):
        if not isinstance(outer, ast.FunctionDef | ast.AsyncFunctionDef):
            continue
        parameters = {a.arg for a in (*outer.args.posonlyargs, *outer.args.args)}
        for node in module.walked(outer):
            if (
                isinstance(node, ast.Call)
                and isinstance(node.func, ast.Attribute)
                and node.func.attr == "impl"
                and len(node.args) >= 2
                and isinstance(node.args[0], ast.Name)
                and node.args[0].id == key.id
                and isinstance(node.args[1], ast.Name)
                and node.args[1].id in parameters
            ):
                return True
    return False


# Custom ops that convert a tensor's layout or packing (Ascend's FRACTAL_NZ format cast and
# int4 packing, https://www.hiascend.com/document/detail/zh/Pytorch/600/apiref/apilist/
# ptaoplist_000139.html), not kernels whose choice changes what is computed.
_LAYOUT_OPS = frozenset(
    {
        "torch.ops.npu.npu_format_cast",
        "torch.ops.npu.npu_format_cast_",
        "torch.ops.npu.npu_convert_weight_to_int4pack",
    }
)

_COMPILE_KEYWORDS = frozenset({"fullgraph", "mode", "backend", "dynamic", "options"})


def _module_compile(call: ast.Call) -> bool:
    """``block.compile(fullgraph=True)``: ``nn.Module.compile``, torch.compile in place (not
    ``pattern.compile("...")``: no positional argument, or torch.compile's keywords)."""
    if any(k.arg in _COMPILE_KEYWORDS for k in call.keywords):
        return True
    return not call.args and not call.keywords


def library_reference(module: Module, node: ast.Name | ast.Attribute) -> Mark | None:
    """A reference to an entry point of a kernel library outside the tree (imported, then
    bound to be called: ``_run = run_splitk_dense``, ``partial(flash_mla.decode, ...)``), as
    a mark; None otherwise."""
    if isinstance(node, ast.Attribute) and not _partial_of(module, node):
        # ``te.Linear`` in ``te.Linear(...)`` is its call's mark, and an attribute
        # elsewhere may be a constant (``aiter.dtypes.fp8``): only names here
        return None
    name = module.resolve(node)
    if name is None or "." not in name or module.in_tree(name):
        return None
    if name.startswith(_FLYDSL):
        return None if name.startswith(_FLYDSL_RUNTIME) else _flydsl_mark(module, name, node.lineno)
    library = library_of(name)
    if library is None:
        return None
    return Mark(MarkKind.LIBRARY, f"{library} ({name})", module.rel, node.lineno)


def bound_api(module: Module, node: ast.Name | ast.Attribute) -> Mark | None:
    """An API whose call is a kernel mark, bound by an assignment to be applied later
    (``jit_fuser = torch.compile``, then ``@jit_fuser``: ROCm/TransformerEngine ac80527
    transformer_engine/pytorch/jit.py:15-22), as the mark its call is; None otherwise."""
    bound = module.parent(node)
    if not isinstance(bound, ast.Assign | ast.AnnAssign) or bound.value is not node:
        return None
    name = module.resolve_api(node)
    kind = _CALLS.get(name or "")
    if kind is None or kind not in KERNEL_MARKS:
        return None
    return Mark(kind, f"{name}, bound to be applied later", module.rel, node.lineno)


def _partial_of(module: Module, node: ast.Attribute) -> bool:
    """Whether ``node`` is the function ``functools.partial`` wraps."""
    parent = module.parent(node)
    return (
        isinstance(parent, ast.Call)
        and bool(parent.args)
        and parent.args[0] is node
        and module.resolve_api(parent.func) == "functools.partial"
    )


def _assign_marks(module: Module, node: ast.Assign | ast.AnnAssign) -> list[Mark]:
    targets = node.targets if isinstance(node, ast.Assign) else [node.target]
    value = node.value
    found = []
    for target in targets:
        name = module.resolve(target) if isinstance(target, ast.Attribute) else None
        if name in _DETERMINISTIC_FLAGS and _is_true(value):
            found.append(Mark(MarkKind.DETERMINISM, f"{name} = True", module.rel, node.lineno))
        if (
            name is not None
            and name.startswith(_AUTOTUNER)
            and not _benchmarks(module, node, value)
        ):
            found.append(
                Mark(
                    MarkKind.DETERMINISM,
                    f"{name} replaced by code that times nothing (no autotuning)",
                    module.rel,
                    node.lineno,
                )
            )
        setting = _environ_setting(module, target, value)
        if setting is not None:
            found.append(Mark(MarkKind.DETERMINISM, setting, module.rel, node.lineno))
    return found


def _benchmarks(module: Module, node: ast.stmt, value: ast.expr | None) -> bool:
    """Whether the function assigned (a function defined in the same scope) times anything:
    calls a ``do_bench`` or a ``_bench``, as Triton's autotuner does; an unknown value may."""
    if not isinstance(value, ast.Name):
        return True
    scope = module.function_node_around(node) or module.tree
    defined = next(
        (
            d
            for d in walk(scope)
            if isinstance(d, ast.FunctionDef | ast.AsyncFunctionDef) and d.name == value.id
        ),
        None,
    )
    if defined is None:
        return True
    for inner in walk(defined):
        if isinstance(inner, ast.Call):
            called = inner.func.attr if isinstance(inner.func, ast.Attribute) else None
            called = called or (inner.func.id if isinstance(inner.func, ast.Name) else "")
            if "bench" in called:
                return True
    return False


def _environ_setting(module: Module, target: ast.expr, value: ast.expr | None) -> str | None:
    """``os.environ["NCCL_ALGO"] = "Ring"``: a determinism setting of the stack at its
    deterministic value, as the catalogue has it."""
    if not isinstance(target, ast.Subscript) or module.resolve(target.value) != "os.environ":
        return None
    key = target.slice
    if not (isinstance(key, ast.Constant) and isinstance(key.value, str)):
        return None
    setting = SETTINGS.get(key.value)
    if setting is None or not (isinstance(value, ast.Constant) and value.value == setting.value):
        return None
    return f"os.environ[{key.value!r}] = {setting.value!r} ({setting.library})"


def _configs(module: Module, node: ast.List | ast.Tuple | ast.ListComp) -> bool:
    """Whether a list holds two or more ``triton.Config`` (or builds them in a loop)."""
    if isinstance(node, ast.ListComp):
        return _is_config(module, node.elt)
    return sum(1 for e in node.elts if _is_config(module, e)) >= 2


def _is_config(module: Module, node: ast.expr) -> bool:
    return isinstance(node, ast.Call) and module.resolve_api(node.func) == "triton.Config"


def _first_true(call: ast.Call) -> bool:
    value = (
        call.args[0]
        if call.args
        else next((k.value for k in call.keywords if k.arg == "mode"), None)
    )
    return value is not None and _is_true(value)


def _turned_on(call: ast.Call, keyword: str) -> bool:
    """Whether a switch call whose first argument (``keyword``) defaults to True turns it on:
    no argument, or True."""
    value = (
        call.args[0]
        if call.args
        else next((k.value for k in call.keywords if k.arg == keyword), None)
    )
    return value is None or _is_true(value)


def _keyword_true(call: ast.Call, keyword: str) -> bool:
    return any(k.arg == keyword and _is_true(k.value) for k in call.keywords)


def _is_true(node: ast.expr | None) -> bool:
    return isinstance(node, ast.Constant) and node.value is True


def _written(node: ast.expr) -> str:
    if isinstance(node, ast.Name):
        return node.id
    if isinstance(node, ast.Attribute):
        return f"{_written(node.value)}.{node.attr}"
    return "a call"
