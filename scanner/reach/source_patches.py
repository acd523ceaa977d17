"""Code a patch installs as source text: a string handed to a function that ``exec``s it.

AMD-AGI/Primus fd1eeab rewrites methods it cannot wrap: ``patch_method_source(MLP,
"__init__", _INIT_ORI, _INIT_NEW)`` (backends/megatron/patches/mlp_fla_swiglu_patches.py:
38-62, :71-72) replaces a fragment of the method's source and ``exec``s the result
(_source_patch_utils.py:73). ``_INIT_NEW`` is code: ``from fla.modules.activations
import swiglu as _fla_swiglu`` and ``self._fla_swiglu_fn = _fla_swiglu``. The fragment is
parsed (its first line at the indent of the rest, an unfinished last line cut off) and its
references to a kernel library's entry points, through the fragment's own imports, are
marks: it runs in another module's namespace, so the module's own imports say nothing.
"""

from __future__ import annotations

import ast
import textwrap
from collections.abc import Iterator

from scanner.reach.libraries import library_of
from scanner.reach.marks import Mark, MarkKind
from scanner.reach.modules import Module
from scanner.source.ast_walk import walk

MAX_PARTS = 16  # names and constants a string is built from
MAX_CUT = 3  # unfinished lines cut off the end of a fragment


def executes(definition: ast.AST) -> bool:
    """Whether a function calls the builtin ``exec`` (on source text it builds)."""
    return any(
        isinstance(n, ast.Call) and isinstance(n.func, ast.Name) and n.func.id == "exec"
        for n in walk(definition)
    )


def installed_marks(module: Module, call: ast.Call, callee: str) -> Iterator[Mark]:
    """The library entry points the source strings handed in ``call`` refer to."""
    for argument in call.args:
        text = _text(module, argument, [0])
        if text is None or "import" not in text:
            continue
        parsed = _fragment(text)
        if parsed is None:
            continue
        imported: dict[str, str] = {}
        for node in walk(parsed):
            if isinstance(node, ast.ImportFrom) and node.module and not node.level:
                for alias in node.names:
                    imported[alias.asname or alias.name] = f"{node.module}.{alias.name}"
            elif isinstance(node, ast.Import):
                for alias in node.names:
                    imported[alias.asname or alias.name.split(".")[0]] = alias.name
        for node in walk(parsed):
            if isinstance(node, ast.Name) and isinstance(node.ctx, ast.Load):
                dotted = imported.get(node.id)
                library = library_of(dotted) if dotted is not None else None
                if dotted is not None and library is not None and not module.in_tree(dotted):
                    what = f"{library} ({dotted}), in the source handed to {callee}"
                    yield Mark(MarkKind.LIBRARY, what, module.rel, argument.lineno)


def _text(module: Module, node: ast.expr, parts: list[int]) -> str | None:
    """The string ``node`` holds: a constant, a sum of strings, a module-level name bound
    once to one."""
    parts[0] += 1
    if parts[0] > MAX_PARTS:
        return None
    if isinstance(node, ast.Constant):
        return node.value if isinstance(node.value, str) else None
    if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Add):
        left = _text(module, node.left, parts)
        right = _text(module, node.right, parts) if left is not None else None
        return left + right if left is not None and right is not None else None
    if isinstance(node, ast.Name):
        bound = [
            s.value
            for s in module.tree.body
            if isinstance(s, ast.Assign)
            and len(s.targets) == 1
            and isinstance(s.targets[0], ast.Name)
            and s.targets[0].id == node.id
        ]
        return _text(module, bound[0], parts) if len(bound) == 1 else None
    return None


def _fragment(text: str) -> ast.Module | None:
    """The statements of a fragment of a method's source, or None."""
    lines = text.split("\n")
    rest = [len(line) - len(line.lstrip()) for line in lines[1:] if line.strip()]
    if rest:
        lines[0] = " " * min(rest) + lines[0].lstrip()
    for cut in range(MAX_CUT + 1):
        kept = lines[: len(lines) - cut] if cut else lines
        try:
            return ast.parse(textwrap.dedent("\n".join(kept)))
        except (SyntaxError, ValueError):
            continue
    return None
