"""The code's evidence judged in forked workers (scanner.run.spread) is what one process
judges: the scan's knobs, roles and reasons are the same whatever the jobs."""

from __future__ import annotations

import multiprocessing
from pathlib import Path

import pytest

from scanner import Knob, scan
from scanner.reach.evidence import CodeReach
from scanner.reach.modules import Tree
from scanner.roles import reads_code
from scanner.run import spread
from tests.conftest import write_tree
from tests.test_reach_order import CYCLE, DEEP

pytestmark = pytest.mark.skipif(
    "fork" not in multiprocessing.get_all_start_methods(), reason="workers are forked"
)


def _tree() -> dict[str, str]:
    """The two order-sensitive shapes of tests.test_reach_order, beside enough knobs of
    their own files for the evidence to be spread (``spread.SPREAD_FROM``), some reaching
    the same functions."""
    files = {**DEEP, **CYCLE}
    for n in range(spread.SPREAD_FROM + 4):
        files[f"pkg/knob{n:02d}.py"] = (
            "import os\n\nfrom pkg.checks import _check\nfrom pkg.fa3 import _load_fallback\n\n\n"
            "def run(x):\n"
            f'    if os.environ.get("PKG_KNOB{n:02d}") == "1":\n'
            f"        {'_check(x)' if n % 3 == 0 else '_load_fallback()' if n % 3 else 'x'}\n"
            "    return x\n"
        )
    return files


def _facts(knobs: tuple[Knob, ...]) -> list[tuple[object, ...]]:
    return [(k.name, k.role, k.polarity, k.off_value, k.role_reason) for k in knobs]


def test_the_scan_is_the_same_on_one_process_and_two(tmp_path: Path) -> None:
    write_tree(tmp_path, _tree())
    one = scan([tmp_path], root=tmp_path, jobs=1)
    two = scan([tmp_path], root=tmp_path, jobs=2)
    kept = scan([tmp_path], root=tmp_path, jobs=2, cache_dir=tmp_path / ".cache")
    again = scan([tmp_path], root=tmp_path, jobs=2, cache_dir=tmp_path / ".cache")
    assert len(one.knobs) >= spread.SPREAD_FROM
    assert _facts(two.knobs) == _facts(one.knobs)
    assert _facts(kept.knobs) == _facts(one.knobs)
    assert _facts(again.knobs) == _facts(one.knobs)


def test_the_workers_judge_every_knob_as_one_process_does(tmp_path: Path) -> None:
    write_tree(tmp_path, _tree())
    result = scan([tmp_path], root=tmp_path, jobs=1)
    tree = Tree({rel: (tmp_path / rel, module) for rel, module in result.modules})
    readable = [k for k in result.knobs if reads_code(k)]
    judged = spread.judged(CodeReach(tree, result.knobs), tree, readable, 2, record=False)
    serial = CodeReach(tree, result.knobs)
    assert sorted(judged) == sorted(k.name for k in readable)
    assert {k.name: judged[k.name].evidence for k in readable} == {
        k.name: serial.evidence(k) for k in readable
    }


def test_too_few_knobs_or_one_job_are_judged_as_they_go(tmp_path: Path) -> None:
    write_tree(tmp_path, DEEP)
    result = scan([tmp_path], root=tmp_path, jobs=1)
    tree = Tree({rel: (tmp_path / rel, module) for rel, module in result.modules})
    code = CodeReach(tree, result.knobs)
    assert spread.judged(code, tree, list(result.knobs), 2, record=False) == {}
    assert spread.judged(code, tree, list(result.knobs) * 20, 1, record=False) == {}
