"""The CUDA extensions a tree builds itself, by the module name each is imported under.

``setup(ext_modules=[CUDAExtension(name="custom_kernels.fused_bloom_attention_cuda",
sources=["custom_kernels/fused_bloom_attention_cuda.cu"])])`` (huggingface/
text-generation-inference db931fc, server/custom_kernels/setup.py:9-12) compiles the tree's
own CUDA kernels into a module; a call of a function of that module
(``fused_bloom_attention_cuda.forward(...)``, server/text_generation_server/models/
custom_modeling/bloom_modeling.py:389) runs them. ``torch.utils.cpp_extension.CUDAExtension``
builds CUDA (or, on ROCm, hipified) sources (https://pytorch.org/docs/stable/
cpp_extension.html); a ``CppExtension`` builds C++ for the CPU and is left out.
"""

from __future__ import annotations

import ast
from collections.abc import Callable, Iterable
from typing import Final

from scanner.source.ast_walk import walk

_BUILDERS: Final = frozenset({"torch.utils.cpp_extension.CUDAExtension"})
_WORD: Final = b"CUDAExtension"


def is_build_script(rel: str) -> bool:
    """Whether ``rel`` is a ``setup.py``, where a tree declares the extensions it builds."""
    return rel == "setup.py" or rel.endswith("/setup.py")


def declared_extensions(
    rels: Iterable[str],
    data: Callable[[str], bytes | None],
    parse: Callable[[str], tuple[ast.Module, Callable[[ast.expr], str | None]] | None],
) -> dict[str, str]:
    """The CUDA extensions the build scripts among ``rels`` declare: each module name,
    with where it is declared (``custom_kernels/setup.py:9``). ``data`` reads a file;
    ``parse`` gives its syntax tree and how it resolves a called name."""
    found: dict[str, str] = {}
    for rel in sorted(r for r in rels if is_build_script(r)):
        text = data(rel)
        if text is None or _WORD not in text:
            continue
        parsed = parse(rel)
        if parsed is None:
            continue
        tree, resolve = parsed
        for node in walk(tree):
            if not isinstance(node, ast.Call) or resolve(node.func) not in _BUILDERS:
                continue
            name = _name(node)
            if name is not None:
                found.setdefault(name, f"{rel}:{node.lineno}")
    return found


def _name(call: ast.Call) -> str | None:
    """The module name an extension is declared under (``name=`` or the first argument)."""
    given = next((k.value for k in call.keywords if k.arg == "name"), None)
    if given is None and call.args:
        given = call.args[0]
    if isinstance(given, ast.Constant) and isinstance(given.value, str):
        return given.value if all(p.isidentifier() for p in given.value.split(".")) else None
    return None


def extension_of(dotted: str, declared: dict[str, str]) -> tuple[str, str] | None:
    """The declared extension ``dotted`` lies in (``ext.fn`` of ``ext``), with where it is
    declared; None otherwise."""
    parts = dotted.split(".")
    for cut in range(len(parts) - 1, 0, -1):
        where = declared.get(".".join(parts[:cut]))
        if where is not None:
            return ".".join(parts[:cut]), where
    return None
