"""A carried value handed to a call as the keyword that makes its kernel split a reduction."""

from __future__ import annotations

import ast
from collections.abc import Sequence
from typing import Final

from scanner.model import Outcome
from scanner.reach.marks import Mark, MarkKind
from scanner.reach.modules import Module
from scanner.reach.sides import Branch

# Keywords that make the kernel a call runs split its reduction in parts the run counts:
# vLLM's CPU attention metadata, ``enable_kv_split`` of ``torch.ops._C.get_scheduler_metadata``
# (vllm-project/vllm, vllm/_custom_ops.py:4046-4061), splits the KV sequence of a decode
# across threads and combines the partial softmaxes.
SPLIT_FLAGS: Final = frozenset({"enable_kv_split"})


def handed_as_split(
    module: Module,
    keyword: ast.keyword,
    carrier: ast.expr,
    outcomes: Sequence[tuple[str | None, Outcome]],
) -> Branch | None:
    """The carried value handed on as ``enable_kv_split=``: a branch with no code of its
    own that reaches a split reduction where the value is true."""
    if keyword.arg not in SPLIT_FLAGS or keyword.value is not carrier:
        return None
    call = module.parent(keyword)
    if not isinstance(call, ast.Call):
        return None
    taken = {value: (bool(outcome),) for value, outcome in outcomes}
    shown = f"{keyword.arg}= handed to {ast.unparse(call.func)}()"
    mark = Mark(MarkKind.SPLIT, shown, module.rel, keyword.value.lineno)
    owner = module.owner_class(carrier)
    # false, the call runs all the same, its kernel unsplit: nothing is left undone
    return Branch(module, (), owner, taken, carrier, True, replaces=True, marks=(mark,))
