"""A warm scan of a tree where no file changed reads the whole scan stored under the files'
status (one cache entry), and gives what the cold scan gave; a change the status shows, or
a file too recent to trust its times, sends it back to reading every file."""

from __future__ import annotations

import os
import shutil
import time
from collections.abc import Callable
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


def test_files_too_recent_to_trust_their_times_are_read_again(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # A window of an hour: the file just written is inside it however long the cold scan
    # takes (two seconds, the real window, passed on a loaded machine and stored the scan).
    monkeypatch.setattr("scanner.run.snapshot.RACY_NS", 3600 * 10**9)
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


# Two gates whose fused paths share one function (the reach walks ``fused`` for the first
# knob and gives what it found to the second), a predicate stored in a module global, and a
# module no walk reads.
SHARED_TREE = {
    "pkg/__init__.py": "",
    "pkg/deep.py": "import triton\n\n\n@triton.jit\ndef _kernel(x):\n    pass\n",
    "pkg/kernels.py": "from pkg.deep import _kernel\n\n\ndef fused(x):\n    _kernel[(1,)](x)\n",
    "pkg/model.py": (
        "import os\n\nfrom pkg.kernels import fused\n\n\ndef step(x):\n"
        '    if os.environ.get("A_FUSED", "1") != "0":\n        return fused(x)\n    return x\n\n\n'
        "def other(x):\n"
        '    if os.environ.get("B_FUSED", "1") != "0":\n        return fused(x)\n    return x\n'
    ),
    "pkg/flags.py": 'import os\n\nC_ON = os.environ.get("C_FUSED", "0") == "1"\n',
    "pkg/plain.py": "A = 1\n",
}


def _aged(tree: Path) -> None:
    for path in tree.rglob("*.py"):
        os.utime(path, (HOUR_AGO, HOUR_AGO))


def _counted(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """The knobs the real CodeReach is asked about from now on."""
    from scanner.reach.evidence import CodeReach

    asked: list[str] = []
    real = CodeReach.evidence

    def counting(self: CodeReach, knob: Knob) -> object:
        asked.append(knob.name)
        return real(self, knob)

    monkeypatch.setattr(CodeReach, "evidence", counting)
    return asked


def _edited(tree: Path, rel: str, text: str) -> None:
    path = tree / rel
    path.write_text(text, encoding="utf-8")
    os.utime(path, (HOUR_AGO, HOUR_AGO))  # only this file's status changes


def _roles(tree: Path, cache: Path) -> list[tuple[str, Role]]:
    return [(k.name, k.role) for k in scan([tree], root=tree, cache_dir=cache, jobs=1).knobs]


def test_a_change_to_a_module_no_walk_read_keeps_every_knobs_evidence(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    tree = write_tree(tmp_path / "tree", SHARED_TREE)
    _aged(tree)
    cache = tmp_path / "cache"
    cold = scan([tree], root=tree, cache_dir=cache, jobs=1)
    asked = _counted(monkeypatch)
    _edited(tree, "pkg/plain.py", "A = 2\n")
    warm = scan([tree], root=tree, cache_dir=cache, jobs=1)
    assert asked == []
    assert warm.knobs == cold.knobs
    assert [(k.name, k.role) for k in warm.knobs] == [
        ("A_FUSED", Role.KERNEL),
        ("B_FUSED", Role.KERNEL),
        ("C_FUSED", Role.UNKNOWN),
    ]


def test_a_change_to_a_module_a_walk_read_recomputes_the_knobs_that_read_it(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    tree = write_tree(tmp_path / "tree", SHARED_TREE)
    _aged(tree)
    cache = tmp_path / "cache"
    scan([tree], root=tree, cache_dir=cache, jobs=1)
    asked = _counted(monkeypatch)
    # The kernel is no longer one: both knobs reached it, B_FUSED through what the walk
    # for A_FUSED found of ``fused`` and kept.
    _edited(tree, "pkg/deep.py", "def _kernel(x):\n    pass\n")
    assert _roles(tree, cache) == [
        ("A_FUSED", Role.UNKNOWN),
        ("B_FUSED", Role.UNKNOWN),
        ("C_FUSED", Role.UNKNOWN),
    ]
    assert asked == ["A_FUSED", "B_FUSED"]  # C_FUSED's walk never read pkg/deep.py


def test_a_copy_of_the_tree_elsewhere_reads_the_kept_evidence(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # A CI runner checks the same commit out again: every file's status is new (times,
    # inode), its bytes are not; with the cache restored, no knob is judged again.
    tree = write_tree(tmp_path / "tree", SHARED_TREE)
    cache = tmp_path / "cache"
    cold = scan([tree], root=tree, cache_dir=cache, jobs=1)
    checkout = tmp_path / "checkout"
    shutil.copytree(tree, checkout)
    asked = _counted(monkeypatch)
    again = scan([checkout], root=checkout, cache_dir=cache, jobs=1)
    assert asked == []
    assert again.knobs == cold.knobs
    # Its bytes changed too: the knobs whose walks read it, and only they, are judged.
    _edited(checkout, "pkg/deep.py", "def _kernel(x):\n    pass\n")
    shutil.rmtree(tree)
    shutil.copytree(checkout, tree)
    assert _roles(tree, cache) == [
        ("A_FUSED", Role.UNKNOWN),
        ("B_FUSED", Role.UNKNOWN),
        ("C_FUSED", Role.UNKNOWN),
    ]
    assert asked == ["A_FUSED", "B_FUSED"]


def test_two_projects_scanned_in_turn_keep_their_own_evidence(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # One cache, two projects scanned as ``.`` each: the evidence is kept under each tree's
    # modules, so going back to the first judges nothing again.
    first = write_tree(tmp_path / "first", SHARED_TREE)
    second = write_tree(tmp_path / "second", KERNEL_TREE)
    cache = tmp_path / "cache"
    scan([first], root=first, cache_dir=cache, jobs=1)
    scan([second], root=second, cache_dir=cache, jobs=1)
    asked = _counted(monkeypatch)
    assert _roles(first, cache) == [
        ("A_FUSED", Role.KERNEL),
        ("B_FUSED", Role.KERNEL),
        ("C_FUSED", Role.UNKNOWN),
    ]
    assert _roles(second, cache) == [("X_FUSED", Role.KERNEL)]
    assert asked == []


def test_a_module_that_now_names_a_carried_value_recomputes_the_knob(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    tree = write_tree(tmp_path / "tree", SHARED_TREE)
    _aged(tree)
    cache = tmp_path / "cache"
    scan([tree], root=tree, cache_dir=cache, jobs=1)
    asked = _counted(monkeypatch)
    # pkg/plain.py was read by no walk; it now tests the flag C_FUSED is stored in.
    _edited(
        tree,
        "pkg/plain.py",
        "from pkg.flags import C_ON\nfrom pkg.kernels import fused\n\n\n"
        "def run(x):\n    if C_ON:\n        return fused(x)\n    return x\n",
    )
    assert _roles(tree, cache) == [
        ("A_FUSED", Role.KERNEL),
        ("B_FUSED", Role.KERNEL),
        ("C_FUSED", Role.KERNEL),
    ]
    assert asked == ["C_FUSED"]
    assert (
        scan([tree], root=tree, jobs=1).knobs
        == scan([tree], root=tree, cache_dir=cache, jobs=1).knobs
    )  # as a scan with no cache finds


def test_a_warm_scan_reads_no_module_for_the_whole_tree_passes(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # The passes after the rounds (a host registry's reads, a config field the tree
    # installs) parse only the modules their byte tests accept: the first round answers the
    # tests as it reads each module, and the stored scan keeps the answers (a warm scan of
    # the installed torch read its 2,286 modules again for them: 0.55 -> 0.80 s).
    from scanner.run import scan as scan_module
    from tests.test_host_registries import PLUGIN
    from tests.test_yaml_installed_fields import TREE

    tested: list[bytes] = []

    def counted(test: Callable[[bytes], bool]) -> Callable[[bytes], bool]:
        def run(data: bytes) -> bool:
            tested.append(data)
            return test(data)

        return run

    monkeypatch.setattr(scan_module, "BYTE_TESTS", tuple(map(counted, scan_module.BYTE_TESTS)))
    root = write_tree(tmp_path / "tree", {**PLUGIN, **TREE})
    for path in root.rglob("*"):
        os.utime(path, (HOUR_AGO, HOUR_AGO))
    cache = tmp_path / "cache"
    cold = scan([root], root=root, cache_dir=cache, jobs=1)
    modules = len(list(root.rglob("*.py")))
    assert len(tested) == 2 * modules  # each test, once on each module
    tested.clear()
    warm = scan([root], root=root, cache_dir=cache, jobs=1)
    assert warm == cold and warm.stats.rounds == 0 and tested == []
    assert cold.knob("VLLM_BATCH_INVARIANT") is not None
    assert "NCCL_ALGO" in {w.name for w in cold.writes}
