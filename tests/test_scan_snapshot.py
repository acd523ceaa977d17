"""A warm scan of a tree where no file changed reads the whole scan stored under the files'
status (one cache entry), and gives what the cold scan gave; a change the status shows, or
a file too recent to trust its times, sends it back to reading every file."""

from __future__ import annotations

import os
import time
from pathlib import Path
from typing import ClassVar

import pytest

from scanner import Knob, Role, Settings, scan
from tests.conftest import write_tree

GATE = 'import os\n\nFUSED = os.environ.get("X_FUSED", "1") != "0"\n'
HOUR_AGO = time.time() - 3600


def _old_tree(root: Path) -> Path:
    write_tree(root, {"pkg/__init__.py": "", "pkg/gates.py": GATE, "pkg/plain.py": "A = 1\n"})
    for path in root.rglob("*.py"):
        os.utime(path, (HOUR_AGO, HOUR_AGO))
    return root


def test_an_unchanged_tree_is_read_from_the_stored_scan(tmp_path: Path) -> None:
    tree = _old_tree(tmp_path / "tree")
    cache = tmp_path / "cache"
    cold = scan([tree], root=tree, cache_dir=cache, jobs=1)
    warm = scan([tree], root=tree, cache_dir=cache, jobs=1)
    assert warm == cold
    assert [(s.name, s.path, s.line, s.column) for k in warm.knobs for s in k.sites] == [
        ("X_FUSED", "pkg/gates.py", 3, 9)
    ]
    assert (cold.stats.rounds, warm.stats.rounds, warm.stats.files_parsed) == (1, 0, 0)
    assert warm.stats.cache_hits == 1


def test_a_same_size_edit_under_an_old_mtime_is_seen(tmp_path: Path) -> None:
    tree = _old_tree(tmp_path / "tree")
    cache = tmp_path / "cache"
    scan([tree], root=tree, cache_dir=cache, jobs=1)
    gates = tree / "pkg" / "gates.py"
    gates.write_text(GATE.replace("X_FUSED", "Y_FUSED"), encoding="utf-8")
    os.utime(gates, (HOUR_AGO, HOUR_AGO))  # the change time still moves
    again = scan([tree], root=tree, cache_dir=cache, jobs=1)
    assert [k.name for k in again.knobs] == ["Y_FUSED"]
    assert again.stats.rounds == 1


def test_a_new_file_is_seen(tmp_path: Path) -> None:
    tree = _old_tree(tmp_path / "tree")
    cache = tmp_path / "cache"
    scan([tree], root=tree, cache_dir=cache, jobs=1)
    (tree / "pkg" / "more.py").write_text(GATE.replace("X_FUSED", "Z_FUSED"), encoding="utf-8")
    again = scan([tree], root=tree, cache_dir=cache, jobs=1)
    assert [k.name for k in again.knobs] == ["X_FUSED", "Z_FUSED"]


def test_files_too_recent_to_trust_their_times_are_read_again(tmp_path: Path) -> None:
    tree = write_tree(tmp_path / "tree", {"gates.py": GATE})
    cache = tmp_path / "cache"
    cold = scan([tree], root=tree, cache_dir=cache, jobs=1)
    warm = scan([tree], root=tree, cache_dir=cache, jobs=1)
    assert warm == cold
    assert (warm.stats.rounds, warm.stats.cache_hits) == (1, 1)  # each file's own entry


def test_other_settings_are_another_stored_scan(tmp_path: Path) -> None:
    tree = _old_tree(tmp_path / "tree")
    cache = tmp_path / "cache"
    scan([tree], root=tree, cache_dir=cache, jobs=1)

    narrowed = scan([tree], Settings(match=("Q_*",)), root=tree, cache_dir=cache, jobs=1)
    assert (narrowed.knobs, narrowed.stats.rounds) == ((), 1)


KERNEL_TREE = {
    "pkg/__init__.py": "",
    "pkg/kernels.py": (
        "import triton\n\n\n@triton.jit\ndef _kernel(x):\n    pass\n\n\n"
        "def fused(x):\n    _kernel[(1,)](x)\n    return x\n"
    ),
    "pkg/model.py": (
        "import os\n\nfrom pkg.kernels import fused\n\n\ndef step(x):\n"
        '    if os.environ.get("X_FUSED", "1") != "0":\n        return fused(x)\n    return x\n'
    ),
}


class _Counting:
    """CodeReach that counts the knobs it is asked about."""

    asked: ClassVar[list[str]] = []

    def __init__(self, tree: object, knobs: object) -> None:
        pass

    def evidence(self, knob: Knob) -> None:
        _Counting.asked.append(knob.name)


def test_a_warm_scan_reads_the_role_evidence_kept_beside_the_stored_scan(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    tree = write_tree(tmp_path / "tree", KERNEL_TREE)
    for path in tree.rglob("*.py"):
        os.utime(path, (HOUR_AGO, HOUR_AGO))
    cache = tmp_path / "cache"
    cold = scan([tree], root=tree, cache_dir=cache, jobs=1)
    monkeypatch.setattr("scanner.run.scan.CodeReach", _Counting)
    _Counting.asked = []
    warm = scan([tree], root=tree, cache_dir=cache, jobs=1)
    model = tree / "pkg" / "model.py"
    model.write_text(model.read_text(encoding="utf-8") + "\n", encoding="utf-8")
    os.utime(model, (HOUR_AGO, HOUR_AGO))
    changed = scan([tree], root=tree, cache_dir=cache, jobs=1)
    assert [(k.name, k.role) for k in cold.knobs] == [("X_FUSED", Role.KERNEL)]
    assert warm == cold  # the evidence read back, reason and all
    assert _Counting.asked == ["X_FUSED"]  # only once a file changed
    assert [(k.name, k.role) for k in changed.knobs] == [("X_FUSED", Role.UNKNOWN)]
