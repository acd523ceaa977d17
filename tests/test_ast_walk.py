"""``scanner.source.ast_walk``: the nodes ``ast.walk`` and ``ast.iter_child_nodes`` give,
in their order; and what ``Module.set_to_none`` keeps of a scope for ``kept.py``."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

from scanner.reach.kept import _made
from scanner.reach.modules import Module, Tree
from scanner.source.ast_walk import children, walk
from tests.conftest import REPO, write_tree

# Every kind of node a walk meets: match patterns, f-strings, comprehensions, lambdas,
# starred targets, decorators, type comments' absence (fields that hold None).
SHAPES = (
    "import os\n"
    "@deco(x=1)\n"
    "class C(Base, metaclass=M):\n"
    "    a: int = 0\n"
    "    def f(self, *args, k=1, **kw) -> None:\n"
    "        match args:\n"
    "            case [1, *rest] | {'k': _, **more} if rest:\n"
    "                pass\n"
    "            case Point(x=0) as p:\n"
    "                pass\n"
    "        y = [i for i in range(3) if i] + {j: j for j in ()}\n"
    "        z = lambda q=1: f'{q!r:>{k}}'\n"
    "        *head, tail = y\n"
    "        async def g():\n"
    "            async with a as (b, c):\n"
    "                await b\n"
    "        try:\n"
    "            del y[0:1:2]\n"
    "        except* ValueError as e:\n"
    "            raise e from None\n"
    "        global G\n"
    "        return os.environ.get('X', None) if z else ...\n"
)


@pytest.mark.parametrize(
    "path", ["scanner/reach/calls.py", "scanner/source/narrow.py", "scanner/reach/uses.py"]
)
def test_walk_gives_the_nodes_of_ast_walk_in_its_order(path: str) -> None:
    for tree in (ast.parse((REPO / path).read_text(encoding="utf-8")), ast.parse(SHAPES)):
        expected = list(ast.walk(tree))
        assert len(expected) > 100
        assert [id(n) for n in walk(tree)] == [id(n) for n in expected]
        for node in expected:
            assert [id(c) for c in children(node)] == [id(c) for c in ast.iter_child_nodes(node)]


# kept.py's shape (vllm 0.33.0 distributed/device_communicators/cuda_communicator.py: the
# communicator kept in ``self.symm_mem_comm`` under a test, None beside it): a class's
# methods set an attribute to None and to a new object; a function a local.
KEPT = (
    "class Comm:\n"
    "    def __init__(self, use):\n"
    "        self.comm = None\n"
    "        self.other: Comm | None = None\n"
    "        if use:\n"
    "            self.comm = Maker()\n"
    "            self.never = Maker()\n\n\n"
    "def build(flag):\n"
    "    handle = None\n"
    "    self.kept = None\n"
    "    if flag:\n"
    "        handle = Maker()\n"
    "        kept = Maker()\n"
    "        fresh = Maker()\n"
    "    return handle\n"
)


def _module(tmp_path: Path) -> Module:
    write_tree(tmp_path, {"pkg/__init__.py": "", "pkg/mod.py": KEPT})
    module = Tree({"pkg/mod.py": (tmp_path / "pkg/mod.py", "pkg.mod")}).module_named("pkg.mod")
    assert module is not None
    return module


def test_set_to_none_is_read_once_per_scope(tmp_path: Path) -> None:
    module = _module(tmp_path)
    cls, function = module.tree.body[0], module.tree.body[1]
    assert module.set_to_none(cls) == (frozenset(), frozenset({"comm", "other"}))
    assert module.set_to_none(function) == (frozenset({"handle"}), frozenset({"kept"}))
    assert module.set_to_none(cls) is module.set_to_none(cls)


def test_a_call_kept_where_none_is_kept_elsewhere(tmp_path: Path) -> None:
    module = _module(tmp_path)
    made = {
        ast.unparse(s.targets[0]): _made(module, s)
        for s in walk(module.tree)
        if isinstance(s, ast.Assign) and isinstance(s.value, ast.Call)
    }
    assert {target: m is not None for target, m in made.items()} == {
        "self.comm": True,  # self.comm = None in the same class
        "self.never": False,
        "handle": True,  # handle = None in the same function
        "kept": True,  # self.kept = None in the same function (a name counts either way)
        "fresh": False,
    }


def test_the_scopes_walk_is_the_module_walk(tmp_path: Path) -> None:
    # One walk of a module gives both its scopes' names and every node (Module.walked).
    write_tree(tmp_path, {"pkg/__init__.py": "", "pkg/mod.py": SHAPES})
    module = Tree({"pkg/mod.py": (tmp_path / "pkg/mod.py", "pkg.mod")}).module_named("pkg.mod")
    assert module is not None
    walked = module.walked(module.tree)
    assert walked is module.scopes.nodes
    assert [id(n) for n in walked] == [id(n) for n in ast.walk(module.tree)]
    assert {"args", "k", "kw", "rest", "more", "p", "i", "j", "q", "head", "tail", "b"} <= (
        module.scopes.bound
    )
    assert "os" not in module.scopes.bound and "C" not in module.scopes.bound
