"""The tree's class an object is an instance of, where the code says so
(scanner/reach/instance_types.py): each form at the line and column of the attribute read
on it, and the forms that say nothing."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

from scanner.reach.instance_types import class_of
from scanner.reach.modules import Tree
from tests.conftest import write_tree

# predibase/lorax a7394ba server/lorax_server/utils/punica.py:392-419 and
# adapters/weights.py:108-118, reduced.
CLASSES = """\
from dataclasses import dataclass
from typing import Optional


class Wrapper:
    def __init__(self, enabled: bool):
        self.enabled = enabled


@dataclass
class Batch:
    wrapper: "Wrapper"
    other: int


class Holder:
    def __init__(self, wrapper: Wrapper, maybe: Optional[Wrapper] = None):
        self.kept = wrapper
        self.made = Wrapper(True)
        self.mixed = Wrapper(True)
        self.unset = None

    def later(self):
        self.mixed = make()
        self.unset = Wrapper(False)
"""

WRAPPER = "pkg.classes.Wrapper"


@pytest.mark.parametrize(
    ("use", "line", "column", "expected"),
    [
        # utils/layers.py:70, :83: a quoted annotation naming a dataclass, and its field
        ('def f(data: "Batch"):\n    return data.wrapper.enabled\n', 2, 12, WRAPPER),
        ("def f(w: Wrapper):\n    return w.enabled\n", 2, 12, WRAPPER),
        ("def f(w: Optional[Wrapper]):\n    return w.enabled\n", 2, 12, WRAPPER),
        ("def f(w: Wrapper | None):\n    return w.enabled\n", 2, 12, WRAPPER),
        ('def f(w: "Optional[Wrapper]"):\n    return w.enabled\n', 2, 12, WRAPPER),
        # a local bound to the constructor, or annotated
        ("def f():\n    w = Wrapper(True)\n    return w.enabled\n", 3, 12, WRAPPER),
        ("def f():\n    w: Wrapper = g()\n    return w.enabled\n", 3, 12, WRAPPER),
        # a field bound from an annotated parameter, or to the constructor
        ("def f(h: Holder):\n    return h.kept.enabled\n", 2, 12, WRAPPER),
        ("def f(h: Holder):\n    return h.made.enabled\n", 2, 12, WRAPPER),
        # a field the function itself binds to the constructor (sglang 0.5.23
        # srt/hardware_backend/npu/modules/deepseek_v2_attention_mla_npu.py:175-198)
        (
            'def f(m: "Holder"):\n    if not hasattr(m, "pre"):\n'
            "        m.pre = Wrapper(True)\n    return m.pre.enabled\n",
            4,
            12,
            WRAPPER,
        ),
        # None beside one class is that class
        ("def f(h: Holder):\n    return h.unset.enabled\n", 2, 12, WRAPPER),
        # what the code does not say: a field bound to what a call returns too, a field
        # of another type, an unannotated parameter, a name a loop binds, a rebound local
        ("def f(h: Holder):\n    return h.mixed.enabled\n", 2, 12, None),
        ('def f(data: "Batch"):\n    return data.other.enabled\n', 2, 12, None),
        ("def f(w):\n    return w.enabled\n", 2, 12, None),
        ("def f(ws):\n    for w in ws:\n        return w.enabled\n", 3, 16, None),
        ("def f():\n    w = Wrapper(True)\n    w = g()\n    return w.enabled\n", 4, 12, None),
        (
            "def f(m):\n    m.pre = Wrapper(True)\n    m.pre = g()\n    return m.pre.enabled\n",
            4,
            12,
            None,
        ),
    ],
)
def test_the_class_of_an_object_is_what_the_code_says(
    tmp_path: Path, use: str, line: int, column: int, expected: str | None
) -> None:
    source = f"from pkg.classes import Batch, Holder, Optional, Wrapper\n\n\n{use}"
    write_tree(tmp_path, {"pkg/__init__.py": "", "pkg/classes.py": CLASSES, "pkg/use.py": source})
    tree = Tree(
        {
            rel: (tmp_path / rel, name)
            for rel, name in (
                ("pkg/__init__.py", "pkg"),
                ("pkg/classes.py", "pkg.classes"),
                ("pkg/use.py", "pkg.use"),
            )
        }
    )
    module = tree.module("pkg/use.py")
    assert module is not None
    loads = [
        node
        for node in ast.walk(module.tree)
        if isinstance(node, ast.Attribute) and node.attr == "enabled"
    ]
    assert [(n.lineno - 3, n.col_offset + 1) for n in loads] == [(line, column)]
    assert class_of(module, loads[0].value, tree) == expected


def test_self_in_a_method_is_its_class_and_a_nested_function_sees_it(tmp_path: Path) -> None:
    write_tree(
        tmp_path,
        {
            "pkg/__init__.py": "",
            "pkg/classes.py": CLASSES
            + """
    def run(self):
        def inner():
            return self.enabled

        return inner, self.enabled
""",
        },
    )
    tree = Tree({"pkg/classes.py": (tmp_path / "pkg/classes.py", "pkg.classes")})
    module = tree.module("pkg/classes.py")
    assert module is not None
    loads = [
        n for n in ast.walk(module.tree) if isinstance(n, ast.Attribute) and n.attr == "enabled"
    ]
    found = {(n.lineno, n.col_offset + 1): class_of(module, n.value, tree) for n in loads}
    assert found == {
        (7, 9): "pkg.classes.Wrapper",  # ``self.enabled = enabled`` in ``__init__``
        (29, 20): "pkg.classes.Holder",
        (31, 23): "pkg.classes.Holder",
    }
