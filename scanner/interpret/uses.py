"""Whether code uses a value for more than testing it.

``if x:``, ``not x``, ``x or y`` and ``x is None`` test a value; ``open(x)``,
``[x, *args]`` and ``x.upper()`` use it. A presence test of a value that the code
then uses only guards that use: the variable is a value knob, not a switch.
"""

from __future__ import annotations

from collections.abc import Callable

import libcst as cst

from scanner.syntax.walk import nodes

Match = Callable[[cst.CSTNode], bool]


def used_beyond_tests(root: cst.CSTNode, matches: Match) -> bool:
    """Whether a node of ``root`` that ``matches`` (a name, an attribute) is used for more
    than being tested for truth or None, or assigned."""
    tested: set[int] = set()
    uses: list[cst.CSTNode] = []
    for node in nodes(root):
        if isinstance(node, cst.If | cst.While | cst.IfExp | cst.Assert):
            tested.add(id(node.test))
        elif isinstance(node, cst.UnaryOperation) and isinstance(node.operator, cst.Not):
            tested.add(id(node.expression))
        elif isinstance(node, cst.BooleanOperation):
            tested.update((id(node.left), id(node.right)))
        elif isinstance(node, cst.Comparison) and all(
            isinstance(c.operator, cst.Is | cst.IsNot) for c in node.comparisons
        ):
            tested.add(id(node.left))
        elif isinstance(node, cst.AssignTarget | cst.AnnAssign):
            tested.add(id(node.target))
        elif isinstance(node, cst.NameItem):  # global X, nonlocal X
            tested.add(id(node.name))
        elif matches(node):
            uses.append(node)
    return any(id(use) not in tested for use in uses)


def name_matcher(name: str) -> Match:
    """Matches the variable ``name``."""
    return lambda node: isinstance(node, cst.Name) and node.value == name


def attribute_matcher(name: str) -> Match:
    """Matches ``self.name``."""
    return lambda node: (
        isinstance(node, cst.Attribute)
        and node.attr.value == name
        and isinstance(node.value, cst.Name)
        and node.value.value == "self"
    )
