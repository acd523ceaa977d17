"""A read returned as one element of a tuple: a value whose choices lie with the callers.

``return os.environ.get("X", "auto").strip().lower(), rows`` (unslothai unsloth
kernels/nvfp4.py:413) compares with nothing where it stands; the callers unpack the tuple
(``mode, rows = _fused_env()``) and test the element (``if mode in _FUSED_OFF:``). The site's
decisions are recorded, so that ``scanner.reach`` follows the element to those tests.
"""

from __future__ import annotations

import libcst as cst

from scanner.syntax.events import Event
from scanner.syntax.walk import nodes


def returned_part(event: Event) -> bool:
    """Whether the read is an element of a tuple its function returns, itself or through
    method calls on it (``.strip().lower()``)."""
    scope = event.unit.scope
    binding = event.binding
    if not isinstance(scope, cst.FunctionDef) or binding is None or binding.store != "return":
        return False
    around = event.target
    for node in nodes(scope.body, (cst.FunctionDef, cst.ClassDef, cst.Lambda)):
        if (
            isinstance(node, cst.Return)
            and isinstance(node.value, cst.Tuple)
            and id(node.value) in around
        ):
            return any(
                id(element.value) in around and _method_calls_on(element.value, event.node)
                for element in node.value.elements
                if isinstance(element, cst.Element)
            )
    return False


def _method_calls_on(value: cst.BaseExpression, read: cst.CSTNode) -> bool:
    """Whether ``value`` is ``read`` or method calls on it (``read.strip().lower()``)."""
    while value is not read:
        if not isinstance(value, cst.Call) or not isinstance(value.func, cst.Attribute):
            return False
        value = value.func.value
    return True
