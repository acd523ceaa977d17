"""The units of a module and their digests (scanner.code_units): what changes a digest and what
does not, and how the unit around a node is named."""

from __future__ import annotations

import ast
import textwrap

import pytest

from scanner.code_units import MODULE, unit, unit_around

KERNEL = '''\
"""Kernels."""

import os

import triton
import triton.language as tl
from .common import fused_tail as tail, other_helper

BLOCK = 128
_CONFIGS = [triton.Config({"BLOCK": 64})]


@triton.autotune(configs=_CONFIGS, key=["n"])
@triton.jit
def _hc_fwd_kernel(X, Y, n, SCALE: tl.constexpr = 2):
    """The forward kernel."""
    offsets = tl.arange(0, BLOCK)
    x = tl.load(X + offsets, mask=offsets < n)
    tl.store(Y + offsets, tail(x) * SCALE)


def unrelated(x):
    return x + 1
'''


def digest(text: str, name: str = "_hc_fwd_kernel") -> str:
    found = unit(ast.parse(text), name)
    assert found is not None
    return found.digest


SAME = [
    (
        "a comment",
        "    offsets = tl.arange(0, BLOCK)\n",
        "    # tile\n    offsets = tl.arange(0, BLOCK)  # rows\n",
    ),
    (
        "formatting",
        "tl.load(X + offsets, mask=offsets < n)",
        "tl.load(\n        X+offsets,\n        mask=offsets<n,\n    )",
    ),
    (
        "the docstring",
        '    """The forward kernel."""\n',
        '    """Rewritten: the fused forward."""\n',
    ),
    ("no docstring", '    """The forward kernel."""\n', ""),
    (
        "blank lines and a move",
        "\n\n@triton.autotune",
        "\n\ndef moved_up():\n    pass\n\n\n\n@triton.autotune",
    ),
    (
        "another name imported beside",
        "fused_tail as tail, other_helper",
        "fused_tail as tail, other_helper, third",
    ),
    ("an unrelated function", "    return x + 1\n", "    return x + 2\n"),
    ("the module docstring", '"""Kernels."""', '"""Triton kernels of the HC glue."""'),
]

CHANGED = [
    ("the body", "tail(x) * SCALE", "tail(x) * SCALE + 1"),
    ("a decorator", "@triton.jit\n", "@triton.jit(debug=True)\n"),
    ("a module constant it loads", "BLOCK = 128", "BLOCK = 256"),
    ("the autotuning table it loads", '{"BLOCK": 64}', '{"BLOCK": 32}'),
    (
        "what an import it uses names",
        "from .common import fused_tail as tail",
        "from .common2 import fused_tail as tail",
    ),
    ("a default", "SCALE: tl.constexpr = 2", "SCALE: tl.constexpr = 3"),
    ("a string that is no docstring", 'key=["n"]', 'key=["n", "m"]'),
]


@pytest.mark.parametrize(("what", "old", "new"), SAME, ids=[c[0] for c in SAME])
def test_what_does_not_change_a_digest(what: str, old: str, new: str) -> None:
    assert old in KERNEL
    assert digest(KERNEL.replace(old, new)) == digest(KERNEL), what


@pytest.mark.parametrize(("what", "old", "new"), CHANGED, ids=[c[0] for c in CHANGED])
def test_what_changes_a_digest(what: str, old: str, new: str) -> None:
    assert old in KERNEL
    assert digest(KERNEL.replace(old, new)) != digest(KERNEL), what


def test_a_unit_is_where_its_def_is_and_a_digest_is_16_hex_digits() -> None:
    found = unit(ast.parse(KERNEL), "_hc_fwd_kernel")
    assert found is not None
    assert (found.name, found.line) == ("_hc_fwd_kernel", 15)  # the `def`, after the decorators
    assert len(found.digest) == 16 and int(found.digest, 16) >= 0
    assert unit(ast.parse(KERNEL), "gone") is None


NAMED = textwrap.dedent(
    """\
    import os

    try:
        import triton

        @triton.jit
        def kernel(x):
            return x
    except ImportError:
        kernel = None

    FLAG = os.environ.get("FLAG", "1") != "0"
    TABLE = {
        "A": lambda: os.environ.get("A", "0") == "1",
        "B": lambda: os.environ.get("B", "0") == "1",
    }
    if FLAG:
        register = print


    class Mixer:
        def forward(self, x):
            def inner(y):
                return os.environ.get("INNER") or y

            return inner(x)
    """
)


@pytest.mark.parametrize(
    ("line", "column", "name"),
    [
        (12, 7, "FLAG"),  # a module-level assignment: the statements that bind the name
        (14, 17, "TABLE[A]"),  # an entry of a module-level table of lambdas (vLLM's envs.py)
        (15, 17, "TABLE[B]"),
        (17, 3, MODULE),  # a module-level statement that binds no one name
        (24, 19, "Mixer.forward.inner"),
    ],
)
def test_the_unit_around_a_node(line: int, column: int, name: str) -> None:
    tree = ast.parse(NAMED)
    parents = {id(c): p for p in ast.walk(tree) for c in ast.iter_child_nodes(p)}
    node = next(
        n
        for n in ast.walk(tree)
        if getattr(n, "lineno", None) == line and getattr(n, "col_offset", None) == column
    )
    chain = [node]
    while id(chain[-1]) in parents and not isinstance(parents[id(chain[-1])], ast.Module):
        chain.append(parents[id(chain[-1])])
    assert unit_around(tree, chain) == name
    assert unit(tree, name) is not None


def test_every_definition_of_a_name_is_in_its_unit() -> None:
    """`kernel` is bound in the `try` and in the handler: a change to either changes it."""
    tree = ast.parse(NAMED)
    both = unit(tree, "kernel")
    assert both is not None and both.line == 7
    changed = unit(ast.parse(NAMED.replace("kernel = None", "kernel = print")), "kernel")
    assert changed is not None and changed.digest != both.digest


def test_an_entry_of_a_table_changes_alone() -> None:
    edited = ast.parse(NAMED.replace('get("B", "0")', 'get("B", "1")'))
    tree = ast.parse(NAMED)
    assert unit(edited, "TABLE[A]") == unit(tree, "TABLE[A]")
    assert unit(edited, "TABLE[B]") != unit(tree, "TABLE[B]")
