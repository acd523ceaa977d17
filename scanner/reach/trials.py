"""A branch that tries code and turns its failure into an error: a check, not a kernel path.

``_check_max_len_infer`` (ModelTC/lightllm fc72ffab lightllm/common/basemodel/basemodel.py:
641-692): unless ``DISABLE_CHECK_MAX_LEN_INFER`` is set, it runs one dummy prefill of the
largest batch in a ``try`` whose handler raises with advice, then drops the result; the
function returns nothing. The kernels the trial reaches are the model's own, run for every
request whatever the variable says: skipping the trial skips a start-up check.
"""

from __future__ import annotations

import ast

from scanner.reach.shapes import own_returns
from scanner.reach.sides import Branch


def trial_raise(branch: Branch) -> str | None:
    """Where ``branch`` turns the failure of the code it tries into an error (the first
    ``raise`` ending each handler of a ``try`` of its own), when its function returns no
    value: file:line, or None."""
    code = branch.code
    if not isinstance(code, tuple) or not code:
        return None
    function = branch.module.function_node_around(code[0])
    if function is None or any(r.value is not None for r in own_returns(function)):
        return None
    for statement in code:
        if isinstance(statement, ast.Try) and statement.handlers:
            ends = [h.body[-1] for h in statement.handlers]
            if all(isinstance(end, ast.Raise) for end in ends):
                return f"{branch.module.rel}:{ends[0].lineno}"
    return None
