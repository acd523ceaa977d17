"""The reach's and the interpreter's per-module memos answer what the walks they replace
answered, in the same order, and are read once."""

from __future__ import annotations

import ast
from pathlib import Path

import libcst as cst
import pytest

from scanner.interpret.expressions import _number_literal
from scanner.reach.modules import Tree
from tests.conftest import write_tree

# unsloth 2026.10.9, studio/backend/core/inference/llama_cpp.py: one method of some
# thousand lines that keeps a dozen locals on the object; the reach asked which of them
# a local is kept under by walking the whole method again for every local it followed.
KEEPS = (
    "class Server:\n"
    "    def __init__(self, use_fa, use_graph, other):\n"
    "        self.flash = use_fa\n"
    "        if other:\n"
    "            self.graph = use_graph\n"
    "            self.flash_again = use_fa\n"
    "        self.plain = other.value\n"
    "        self.both, self.pair = use_fa, use_graph\n"
    "        x.y = use_fa\n"
    "        self.other = use_graph\n"
)


def test_the_locals_kept_on_the_object_by_name_in_walk_order(tmp_path: Path) -> None:
    write_tree(tmp_path, {"pkg/server.py": KEEPS})
    tree = Tree({"pkg/server.py": (tmp_path / "pkg/server.py", "pkg.server")})
    module = tree.module("pkg/server.py")
    assert module is not None
    method = module.definitions["Server.__init__"]
    assert isinstance(method, ast.FunctionDef)
    kept = module.kept_on_self(method)
    # ast.walk is breadth first: the statements of the body before those of the `if`.
    assert dict(kept) == {
        "use_fa": [(3, "flash"), (6, "flash_again")],
        "use_graph": [(10, "other"), (5, "graph")],
    }
    assert module.kept_on_self(method) is kept  # one walk, kept


@pytest.mark.parametrize(
    "text", ["0", "1", "1_000", "0x1F", "0o17", "0b101", "1.5", "1e-3", "1_0.5e+2", ".5", "5."]
)
def test_a_number_literal_has_the_value_libcst_gives_it(text: str) -> None:
    node = cst.parse_expression(text)
    assert isinstance(node, cst.Integer | cst.Float)
    value = _number_literal(text)
    assert value == node.evaluated_value
    assert type(value) is type(node.evaluated_value)


def test_a_scope_is_walked_once_in_walk_order(tmp_path: Path) -> None:
    write_tree(tmp_path, {"pkg/server.py": KEEPS})
    tree = Tree({"pkg/server.py": (tmp_path / "pkg/server.py", "pkg.server")})
    module = tree.module("pkg/server.py")
    assert module is not None
    method = module.definitions["Server.__init__"]
    walked = module.walked(method)
    assert [type(n).__name__ for n in walked] == [type(n).__name__ for n in ast.walk(method)]
    assert module.walked(method) is walked
