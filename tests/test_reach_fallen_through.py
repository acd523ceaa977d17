"""What a function returns unset where a guard keeps unset away from the return of the local
that holds the variable (scanner.reach.guarded.fallen_through): one rule with the probes'
(scanner.reach.branches._computed_unset), so a return the machine computes by a call counts
as both truths where every return of the local is a truth.

state-spaces/mamba e9594ce1 mamba_ssm/utils/determinism.py:21-27 (``if env: return env[0] ==
'1'`` / ``return torch.are_deterministic_algorithms_enabled()``); unslothai unsloth
kernels/nf4_gemv.py:172-181 (``if env in ("0", "1"): return env == "1"`` / ``return
torch.version.hip is None``).
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

from scanner.model import Outcome
from scanner.reach.guarded import fallen_through, reaching
from scanner.reach.modules import Tree
from tests.conftest import write_tree

OUTCOMES: list[tuple[str | None, Outcome]] = [("1", "1"), ("0", "0"), (None, None)]

CASES = [
    (
        "a-call-where-the-local-returns-truths",
        "    if env in ('0', '1'):\n        return env == '1'\n"
        "    return torch.are_deterministic_algorithms_enabled()\n",
        [(None, True), (None, False)],
    ),
    (
        "a-comparison-computed-from-the-machine",
        "    if env in ('0', '1'):\n        return env == '1'\n"
        "    return torch.version.hip is None\n",
        [(None, True), (None, False)],
    ),
    (
        "two-constants",
        "    if env in ('0', '1'):\n        return env\n"
        "    if torch.cuda.is_available():\n        return 'fused'\n    return 'dequant'\n",
        [(None, "dequant"), (None, "fused")],
    ),
    (
        "a-call-where-the-local-itself-is-returned",
        "    if env in ('0', '1'):\n        return env\n"
        "    return torch.are_deterministic_algorithms_enabled()\n",
        [],
    ),
    (
        "a-call-where-one-return-of-the-local-is-no-truth",
        "    if env == '1':\n        return env == '1'\n    if env == '0':\n        return env\n"
        "    return torch.are_deterministic_algorithms_enabled()\n",
        [],
    ),
    (
        "a-name-computed-elsewhere",
        "    if env in ('0', '1'):\n        return env == '1'\n    return _DEFAULT\n",
        [],
    ),
]


@pytest.mark.parametrize(("body", "expected"), [c[1:] for c in CASES], ids=[c[0] for c in CASES])
def test_what_unset_may_return(
    tmp_path: Path, body: str, expected: list[tuple[str | None, Outcome]]
) -> None:
    write_tree(tmp_path, {"pkg/mod.py": f"import torch\n\n\ndef choose(env):\n{body}"})
    module = Tree({"pkg/mod.py": (tmp_path / "pkg/mod.py", "pkg.mod")}).module_named("pkg.mod")
    assert module is not None
    function = module.tree.body[1]
    assert isinstance(function, ast.FunctionDef)
    carried = next(
        n
        for n in ast.walk(function)
        if isinstance(n, ast.Return) and n.value is not None and "env" in ast.unparse(n.value)
    )
    held = reaching(module, carried, "env", OUTCOMES)
    assert fallen_through(module, function, "env", OUTCOMES, held) == expected
