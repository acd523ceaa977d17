"""An arm of an ``if`` that only says the other arm could not run.

vllm-ascend's deterministic mode sets itself up where its ops are available and otherwise
only warns: ``if HAS_TRITON or HAS_ASCENDC_BATCH_INVARIANT: ... override_envs_for_invariance()
... else: logger.warning("Batch-invariant mode requested but ... skipping")``
(vllm_ascend/batch_invariant.py:152-162). The warning is no other choice the run makes:
where the mode can run, it runs, so a deterministic mode the first arm always reaches is
reached whenever the ``if`` is (``scanner.reach.calls``).
"""

from __future__ import annotations

import ast
from collections.abc import Sequence

# The methods and functions that only report: a logger's, ``warnings.warn``, ``print``.
_REPORTS = frozenset(
    {"debug", "info", "warning", "warn", "error", "warning_once", "info_once", "print"}
)


def only_warns(statements: Sequence[ast.stmt]) -> bool:
    """Whether ``statements`` do nothing but report (and ``pass``)."""
    said = False
    for statement in statements:
        if isinstance(statement, ast.Pass):
            continue
        if not (isinstance(statement, ast.Expr) and isinstance(statement.value, ast.Call)):
            return False
        func = statement.value.func
        name = func.attr if isinstance(func, ast.Attribute) else getattr(func, "id", None)
        if name not in _REPORTS:
            return False
        said = True
    return said
