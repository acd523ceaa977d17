"""A name a function binds for itself (a parameter, a local) hides the module's name of the
same spelling: the reach does not take it for the module's import (scanner.reach.scopes)."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

from scanner import Role
from scanner.reach.modules import Tree
from tests.conftest import write_tree
from tests.scanned import scanned_knob

# torch 2.13.0 torch/__init__.py:1712: `def _check_with(error_type, cond, message)` reads its
# parameter `cond` (`expect_true(cond)`, :1728) beside the module's
# `from torch._higher_order_ops import cond as cond` (:2874), whose cond (cond.py:96) calls
# `_hop_compile_and_call` (utils.py:100) -> torch.compile. The parameter was resolved as the
# import: every knob whose branch calls `_check` seemed to reach torch.compile.
CHECKS = {
    "pkg/__init__.py": (
        "from pkg.hops import cond as cond\n\n\n"
        "def expect_true(a):\n    return bool(a)\n\n\n"
        "def _check_with(error_type, cond, message):\n"
        "    if expect_true(cond):\n"
        "        return\n"
        "    raise error_type(message)\n\n\n"
        "def _check(cond, message=None):\n"
        "    _check_with(RuntimeError, cond, message)\n"
    ),
    "pkg/hops.py": (
        "import torch\n\n\n"
        "def cond(pred, fn):\n"
        '    return torch.compile(fn, backend="eager", fullgraph=True)(pred)\n'
    ),
    "pkg/fake.py": (
        "import os\n\nfrom pkg import _check\n\n\n"
        "def dispatch(out):\n"
        '    if os.environ.get("PKG_CACHE_CROSSCHECK") == "1":\n'
        "        _check(out is not None)\n"
        "    return out\n"
    ),
}


def test_a_parameter_named_as_an_import_is_not_the_import(tmp_path: Path) -> None:
    knob = scanned_knob(tmp_path, CHECKS, "PKG_CACHE_CROSSCHECK")
    assert knob.role is not Role.KERNEL, knob.role_reason
    assert "torch.compile" not in (knob.role_reason or "")


def test_the_import_itself_still_reaches_its_kernel(tmp_path: Path) -> None:
    files = dict(CHECKS)
    files["pkg/fake.py"] = (
        files["pkg/fake.py"]
        .replace("_check(out is not None)", "cond(out, dispatch)")
        .replace("from pkg import _check", "from pkg import cond")
    )
    knob = scanned_knob(tmp_path, files, "PKG_CACHE_CROSSCHECK")
    assert knob.role is Role.KERNEL, knob.role_reason
    assert "torch.compile" in (knob.role_reason or "")


# Each case: a module where `cond` is imported, and the text of the load of `cond` asked for
# (its line), with what it resolves to.
SOURCE = """\
from pkg.hops import cond
import functools


def parameter(cond):
    return cond(1)


def local():
    cond = functools.partial(print)
    return cond(2)


def default(flag=cond):
    return flag


def declared():
    global cond
    cond = cond(3)


def closure(cond):
    def inner():
        return cond(4)
    return inner


def lam():
    return (lambda cond: cond(5))(print)


def comprehension(items):
    return [cond(6) for cond in items]


def first_iterable():
    return [x for x in cond(7)]


def unrelated(x):
    return cond(8)


def by_import():
    from pkg.other import cond
    return cond(9)


class Holder:
    cond = print

    def method(self):
        return cond(10)
"""

EXPECTED = {
    1: None,
    2: None,
    3: "pkg.hops.cond",
    4: None,
    5: None,
    6: None,
    7: "pkg.hops.cond",
    8: "pkg.hops.cond",
    9: "pkg.hops.cond",  # the module's import is taken first, as before
    10: "pkg.hops.cond",  # a class body's names are not the method's
}


@pytest.mark.parametrize("number", sorted(EXPECTED))
def test_what_a_load_of_the_name_resolves_to(tmp_path: Path, number: int) -> None:
    write_tree(tmp_path, {"pkg/__init__.py": "", "pkg/hops.py": "def cond(p):\n    return p\n"})
    write_tree(tmp_path, {"pkg/mod.py": SOURCE})
    module = Tree({"pkg/mod.py": (tmp_path / "pkg/mod.py", "pkg.mod")}).module_named("pkg.mod")
    assert module is not None
    calls = [
        n
        for n in ast.walk(module.tree)
        if isinstance(n, ast.Call)
        and isinstance(n.func, ast.Name)
        and n.func.id == "cond"
        and isinstance(n.args[0], ast.Constant)
        and n.args[0].value == number
    ]
    assert len(calls) == 1
    assert module.resolve(calls[0].func) == EXPECTED[number]


def test_a_default_value_is_the_module_name(tmp_path: Path) -> None:
    write_tree(tmp_path, {"pkg/__init__.py": "", "pkg/hops.py": "def cond(p):\n    return p\n"})
    write_tree(tmp_path, {"pkg/mod.py": SOURCE})
    module = Tree({"pkg/mod.py": (tmp_path / "pkg/mod.py", "pkg.mod")}).module_named("pkg.mod")
    assert module is not None
    function = module.definitions["default"]
    assert isinstance(function, ast.FunctionDef)
    default = function.args.defaults[0]
    assert module.resolve(default) == "pkg.hops.cond"
