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


# picked_returns' walk of a selector (unsloth_zoo temporary_patches/moe_utils.py:2120-2145,
# sglang srt/layers/attention/hip_flash_mla.py:174-186): each statement after the read is
# asked, once per value and per choice of the machine's answers, whether a return or a
# raise sits in it; Module.leaves answers from one walk per statement.
SELECTOR = (
    "import os\n"
    "def pick(backend=None):\n"
    "    requested = os.environ.get('X_BACKEND', '')\n"
    "    if requested:\n"
    "        if requested == 'native_torch':\n"
    "            return 'native_torch'\n"
    "        print(f'backend {requested!r} is not available')\n"
    "    if backend is None:\n"
    "        backend = 'auto'\n"
    "    if backend == 'auto':\n"
    "        return 'aiter' if supported() else 'tilelang'\n"
    "    if backend == 'aiter' and not supported():\n"
    "        raise ValueError('aiter needs gfx950')\n"
    "    for name in ('a', 'b'):\n"
    "        while name:\n"
    "            try:\n"
    "                return name\n"
    "            finally:\n"
    "                name = ''\n"
    "    return backend\n"
)


def test_leaves_answers_as_a_walk_of_the_statement_does(tmp_path: Path) -> None:
    write_tree(tmp_path, {"pkg/__init__.py": "", "pkg/mod.py": SELECTOR + KEPT})
    module = Tree({"pkg/mod.py": (tmp_path / "pkg/mod.py", "pkg.mod")}).module_named("pkg.mod")
    assert module is not None
    statements = [n for n in ast.walk(module.tree) if isinstance(n, ast.stmt)]
    expected = [any(isinstance(n, ast.Return | ast.Raise) for n in ast.walk(s)) for s in statements]
    assert [module.leaves(s) for s in statements] == expected
    assert expected.count(True) >= 10 and expected.count(False) >= 10
    assert [module.leaves(s) for s in statements] == expected  # kept: the same answers


def _bound_by_isinstance(tree: ast.Module) -> frozenset[str]:
    """The names ``_scoped_names`` finds, tested node by node with ``isinstance``."""
    names: set[str] = set()
    scopes: tuple[type[ast.AST], ...] = (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda)
    scopes += (ast.ListComp, ast.SetComp, ast.DictComp, ast.GeneratorExp)
    pending: list[tuple[ast.AST, bool]] = [(tree, False)]
    while pending:
        node, within = pending.pop()
        if isinstance(node, ast.arg):
            names.add(node.arg)
        elif within and isinstance(node, ast.Name) and not isinstance(node.ctx, ast.Load):
            names.add(node.id)
        elif within and isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
            names.add(node.name)
        elif within and isinstance(node, ast.ExceptHandler | ast.MatchAs | ast.MatchStar):
            names.update([node.name] if node.name else [])
        elif within and isinstance(node, ast.MatchMapping) and node.rest:
            names.add(node.rest)
        inner = within or isinstance(node, scopes)
        pending.extend((c, inner) for c in ast.iter_child_nodes(node))
    return frozenset(names)


@pytest.mark.parametrize(
    "path", ["scanner/reach/calls.py", "scanner/source/narrow.py", "scanner/reach/uses.py"]
)
def test_scoped_names_by_type_are_those_isinstance_finds(path: str, tmp_path: Path) -> None:
    # _scoped_names looks each node's type up in a set before testing it further.
    for text in ((REPO / path).read_text(encoding="utf-8"), SHAPES, SELECTOR):
        write_tree(tmp_path, {"pkg/__init__.py": "", "pkg/mod.py": text})
        tree = Tree({"pkg/mod.py": (tmp_path / "pkg/mod.py", "pkg.mod")})
        module = tree.module_named("pkg.mod")
        assert module is not None
        expected = _bound_by_isinstance(module.tree)
        assert len(expected) >= 3
        assert module.scopes.bound == expected
