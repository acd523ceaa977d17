"""What a module's index binds from the imports and ``import_module`` calls of its
functions (scanner.reach.modules ``_index``), where the text says which to look for."""

from __future__ import annotations

import ast
from pathlib import Path

from scanner.reach.modules import Module, Tree
from tests.conftest import write_tree

# Shapes of the real code: an import in a function that declares the name global
# (tests/test_roles_code.py "a-global-bound-by-an-import-in-a-function"), a lazy import by
# name (unsloth_zoo temporary_patches: `importlib.import_module(...)` in a function), and
# the same through an imported alias.
SOURCE = (
    "import importlib\n"
    "from importlib import import_module as load_module\n\n\n"
    "def load():\n"
    "    global fa\n"
    "    import flash_attn as fa\n\n\n"
    "def kernels():\n"
    '    ops = importlib.import_module("pkg.ops")\n'
    '    fused = load_module("pkg.fused")\n'
    '    name = str("pkg.other")\n'
    "    return ops, fused, name\n\n\n"
    "def attend(q):\n"
    "    return fa.flash_attn_func(q)\n"
)


def _module(tmp_path: Path, text: str) -> Module:
    write_tree(tmp_path, {"pkg/__init__.py": "", "pkg/mod.py": text})
    module = Tree({"pkg/mod.py": (tmp_path / "pkg/mod.py", "pkg.mod")}).module_named("pkg.mod")
    assert module is not None
    return module


def test_lazy_imports_by_name_bind_their_modules(tmp_path: Path) -> None:
    module = _module(tmp_path, SOURCE)
    assert module.local_imports["ops"] == "pkg.ops"
    assert module.local_imports["fused"] == "pkg.fused"
    assert "name" not in module.local_imports


def test_an_import_under_a_global_declaration_binds_the_module_name(tmp_path: Path) -> None:
    module = _module(tmp_path, SOURCE)
    load = next(
        n
        for n in ast.walk(module.tree)
        if isinstance(n, ast.Name) and n.id == "fa" and isinstance(n.ctx, ast.Load)
    )
    assert module.resolve(load) == "flash_attn"


def test_without_the_words_the_same_calls_bind_nothing(tmp_path: Path) -> None:
    # no `global`, no `import_module`: the function's import binds its own local only
    text = (
        SOURCE.replace("    global fa\n", "")
        .replace("importlib.import_module", "importlib.reload")
        .replace("import import_module as load_module", "import reload as load_module")
    )
    module = _module(tmp_path, text)
    assert "ops" not in module.local_imports
    assert "fused" not in module.local_imports
    load = next(
        n
        for n in ast.walk(module.tree)
        if isinstance(n, ast.Name) and n.id == "fa" and isinstance(n.ctx, ast.Load)
    )
    assert module.resolve(load) is None
