"""A switch decided in a quantizer's weight-loading code: its value may change the weights.

A library's quantizer class quantizes a model's weights as they load (Hugging Face
transformers' ``HfQuantizer`` subclasses, transformers/quantizers/base.py:
``_process_model_before_weight_loading`` / ``_process_model_after_weight_loading`` replace
or quantize the model's Linear layers). A switch tested in a method of a subclass of one, or
in a function the code installs on one, chooses how the weights are stored: the side that
keeps them packed reaches a kernel, while the other hands them to the quantizer, which
stores other numbers (unsloth models/compressed_tensors_bnb.py:1116-1189, a subclass of
transformers' bitsandbytes 4-bit quantizer, and models/mxfp4_compressed_linear.py:659-729,
a hook installed on the compressed-tensors quantizer; the '0' side re-quantizes the
checkpoint to bitsandbytes 4-bit, :202). That is not only a kernel choice.
"""

from __future__ import annotations

import ast
from collections.abc import Iterable
from typing import Final

from scanner.reach.modules import Module
from scanner.reach.sides import Branch

# Where a library keeps its quantizer classes (transformers/quantizers/: base.py HfQuantizer
# and one module per method, quantizer_bnb_4bit.py, quantizer_compressed_tensors.py, ...).
QUANTIZER_MODULES: Final = ("transformers.quantizers.",)


def weight_loading(branches: Iterable[Branch]) -> str | None:
    """Where the first of ``branches`` whose test lies in a quantizer's weight-loading code
    is, as the reason shows it; None where none does."""
    for branch in branches:
        module = branch.module
        if not _imports_a_quantizer(module):
            continue
        function = module.function_node_around(branch.test)
        while function is not None:
            shown = _quantizer_method(module, function)
            if shown is not None:
                return shown
            function = module.function_node_around(function)
    return None


def _imports_a_quantizer(module: Module) -> bool:
    """Whether the module imports anything from a quantizer module (at its top or in a
    function): where it does not, none of its names resolves to a quantizer class."""
    return any(
        dotted.startswith(QUANTIZER_MODULES)
        for dotted in (*module.imports.values(), *module.local_imports.values())
    )


def _quantizer_method(
    module: Module, function: ast.FunctionDef | ast.AsyncFunctionDef
) -> str | None:
    """How ``function`` belongs to a quantizer class: a method of a subclass of one, or a
    function assigned to an attribute of one; None otherwise."""
    parent = module.parent(function)
    if isinstance(parent, ast.ClassDef):
        for base in parent.bases:
            name = module.resolve(base)
            if name is not None and name.startswith(QUANTIZER_MODULES):
                return (
                    f"{parent.name}.{function.name} ({module.rel}:{function.lineno}), a method "
                    f"of a subclass of {name}"
                )
    scope = module.function_node_around(function)
    for node in _installs(module).get(function.name, ()):
        if scope is not None and module.function_node_around(node) is not scope:
            continue  # another function's local of the same name
        for target in node.targets:
            if not isinstance(target, ast.Attribute):
                continue
            name = module.resolve(target.value)
            if name is not None and name.startswith(QUANTIZER_MODULES):
                return (
                    f"{function.name} ({module.rel}:{function.lineno}), installed on {name} "
                    f"at {module.rel}:{node.lineno}"
                )
    return None


_INSTALLS: dict[int, tuple[Module, dict[str, list[ast.Assign]]]] = {}
_KEPT: Final = 512


def _installs(module: Module) -> dict[str, list[ast.Assign]]:
    """The module's assignments of a bare name to an attribute (``C.m = f``), by the name
    (found once per module)."""
    known = _INSTALLS.get(id(module))
    if known is None or known[0] is not module:
        found: dict[str, list[ast.Assign]] = {}
        for node in module.walked(module.tree):
            if (
                isinstance(node, ast.Assign)
                and isinstance(node.value, ast.Name)
                and any(isinstance(t, ast.Attribute) for t in node.targets)
            ):
                found.setdefault(node.value.id, []).append(node)
        if len(_INSTALLS) >= _KEPT:
            _INSTALLS.clear()  # another tree's modules: found again if asked
        known = _INSTALLS[id(module)] = (module, found)
    return known[1]
