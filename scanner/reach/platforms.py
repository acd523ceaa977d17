"""Code only a machine without a GPU runs: an Ascend NPU's or the CPU's.

A bitwise recipe is for a GPU run. A kernel that only another machine runs (an operator of
torch_npu, a CPU build's ``torch.ops.<ns>.<name>_cpu`` op, anything behind ``if _is_npu:``
or ``if is_cpu():``) says nothing of what a GPU run computes. It may still show that the
variable unset runs a kernel of that machine and a value leaves it (a switch of the NPU's
code, inert on a GPU); it must not make the side that runs it the kernel side of a knob
whose other side is the GPU's code, whose kernels the reach may not see.
"""

from __future__ import annotations

import ast
import re

from scanner.model import Role
from scanner.reach.modules import Module
from scanner.roles import Evidence

# A test of the machine that holds only on an NPU or the CPU (``_is_npu``, ``is_cpu()``,
# ``get_platform().is_npu``, ``is_npu_available()``): a bare ``cpu`` or ``npu`` is a name.
_OFF_GPU_TEST = re.compile(r"_?is_(npu|cpu)(_available|_platform)?")
# torch_npu's operators (https://github.com/Ascend/pytorch) and torch.ops.npu's.
_OFF_GPU_PACKAGES = ("torch_npu.", "torch.ops.npu.")


def off_gpu_call(module: Module, node: ast.expr) -> bool:
    """Whether the call or reference ``node`` runs on an NPU or the CPU alone: an operator
    of torch_npu, or a custom op named for the CPU (``torch.ops.sgl_kernel.rmsnorm_cpu``)."""
    target = node.func if isinstance(node, ast.Call) else node
    name = module.resolve_api(target) if isinstance(target, ast.Name | ast.Attribute) else None
    if name is None:
        return False
    if name.startswith(_OFF_GPU_PACKAGES):
        return True
    parts = name.split(".")
    return len(parts) == 4 and parts[:2] == ["torch", "ops"] and parts[3].endswith("_cpu")


def off_gpu_arm(test: ast.expr) -> bool | None:
    """Which arm of ``if test:`` only an NPU or the CPU runs: True, its body (``if _is_npu:``,
    ``if _is_cpu and _has_amx:``); False, its ``else`` (``if not _is_npu:``); None, neither."""
    if _holds_off_gpu_only(test):
        return True
    if isinstance(test, ast.UnaryOp) and isinstance(test.op, ast.Not):
        return False if _holds_off_gpu_only(test.operand) else None
    return None


def _holds_off_gpu_only(test: ast.expr) -> bool:
    if isinstance(test, ast.BoolOp):
        held = [_holds_off_gpu_only(v) for v in test.values]
        return any(held) if isinstance(test.op, ast.And) else all(held)
    if isinstance(test, ast.Call) and not test.args and not test.keywords:
        test = test.func
    if isinstance(test, ast.Attribute):
        return _OFF_GPU_TEST.fullmatch(test.attr.lower()) is not None
    if isinstance(test, ast.Name):
        return _OFF_GPU_TEST.fullmatch(test.id.lower()) is not None
    return False


def off_gpu_judged(anywhere: Evidence | None, gpu: Evidence | None) -> Evidence | None:
    """The evidence of a knob whose branches show no kernel a GPU runs (``gpu``: the doubt
    they show, or None), from all the kernels they reach (``anywhere``). A value that leaves
    a kernel of another machine the variable unset runs is a switch of that machine's code;
    a value that runs one, where unset runs the GPU's code, says nothing of a GPU run."""
    if anywhere is None or anywhere.role is Role.UNKNOWN:
        return gpu or anywhere
    if anywhere.role is Role.KERNEL and not anywhere.default_reaches:
        return Evidence(
            Role.UNKNOWN,
            f"{anywhere.reason}; but only a machine without a GPU (an NPU, the CPU) runs "
            "that kernel, and unset runs code whose kernels, if any, are not seen: on a GPU "
            "the code does not say which side is the kernel, a person must say",
        )
    return anywhere
