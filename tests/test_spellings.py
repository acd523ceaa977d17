"""A site's probes share one run among the set values its code cannot tell apart, and
what the scan finds is what it finds with every value run on its own."""

from __future__ import annotations

from pathlib import Path

import pytest

from scanner import ScanResult, scan
from scanner.interpret import spellings
from scanner.interpret.site_runs import SiteRuns
from tests.conftest import write_tree

# The shapes of switch tests in real trees, each a site of its own knob. The first ones
# only compare the value they read (Primus, primus/core/utils/env.py and its
# ``os.getenv(N, "0") == "1"`` switches; unsloth 2026.10.9,
# studio/backend/core/inference/llama_cpp.py, ``.lower() in (...)`` and ``.strip()``
# tests); the later ones keep it, hand it on or compare it twice, and run for every value.
SOURCE = """
import os


def fused():
    return 1


def eager():
    return 0


def equal():
    return os.environ.get("A_EQUAL", "0") == "1"


def lowered():
    if os.getenv("B_LOWER", "").lower() in ("1", "true", "yes"):
        return fused()
    return eager()


def subscript():
    try:
        return os.environ["C_SUBSCRIPT"] != "0"
    except KeyError:
        return False


def kept():
    value = os.getenv("D_KEPT", "0")
    return value == "1"


def present():
    if "E_PRESENT" in os.environ and os.environ["E_PRESENT"].strip() == "on":
        return fused()
    return eager()


def flag(name):
    return os.getenv(name, "0").strip().lower() == "1"


F_WRAPPED = flag("F_WRAPPED")


def twice():
    return os.getenv("G_TWICE", "") == os.getenv("G_TWICE", "x")


def nothing(mode):
    if os.getenv("H_UNKNOWN", "1") == mode:
        return fused()
    return eager()


def ordered():
    return os.getenv("I_ORDERED", "0") > "0"


def handed():
    return int(os.getenv("J_HANDED", "0")) == 1


def upper():
    choice = os.environ.get("K_CHOICE", "auto").upper()
    if choice == "FAST":
        return fused()
    if os.environ.get("K_CHOICE", "auto").casefold() == "eager":
        return eager()
    return None
"""


def _scan(root: Path) -> ScanResult:
    return scan([root], root=root, jobs=1)


def _decisions(result: ScanResult) -> list[object]:
    return [(k.name, site.decisions) for k in result.knobs for site in k.sites]


def _counted(monkeypatch: pytest.MonkeyPatch) -> list[str | None]:
    """Every run of a site's code, by the value it was given."""
    runs: list[str | None] = []
    probe = SiteRuns.__call__

    def counting(self: SiteRuns, value: str | None) -> object:
        runs.append(value)
        return probe(self, value)

    monkeypatch.setattr(SiteRuns, "__call__", counting)
    return runs


def test_shared_runs_find_what_every_run_finds(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    write_tree(tmp_path, {"pkg/flags.py": SOURCE})
    runs = _counted(monkeypatch)
    shared = _scan(tmp_path)
    shared_runs = len(runs)
    runs.clear()

    def every_value(self: spellings.SharedRuns, value: str | None) -> object:
        return self._run(value)[0]

    monkeypatch.setattr(spellings.SharedRuns, "__call__", every_value)
    alone = _scan(tmp_path)
    assert shared == alone
    # Where the code decides with the value (not compared by the knobs' equality): each
    # probe's outcome at the read itself among them.
    assert _decisions(shared) == _decisions(alone)
    assert [k.name for k in shared.knobs] == [
        "A_EQUAL",
        "B_LOWER",
        "C_SUBSCRIPT",
        "D_KEPT",
        "E_PRESENT",
        "F_WRAPPED",
        "G_TWICE",
        "H_UNKNOWN",
        "I_ORDERED",
        "J_HANDED",
        "K_CHOICE",
    ]
    assert shared_runs < len(runs)


def test_a_value_compared_alone_is_run_once_per_outcome(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # `get(N, "0") == "1"` sorts the set values into two outcomes: unset, "1" and "0" are
    # run, and every other value takes the run of the one it compares like.
    write_tree(tmp_path, {"pkg/flags.py": EQUAL})
    runs = _counted(monkeypatch)
    knob = _scan(tmp_path).knob("A")
    assert knob is not None
    gate = knob.sites[0].gate
    assert (gate.on_values, gate.off_values[:3]) == (("1",), ("0", "false", "no"))
    assert runs == [None, "1", "0"]


def test_a_value_kept_is_run_for_every_value(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    write_tree(tmp_path, {"pkg/flags.py": KEPT})
    runs = _counted(monkeypatch)
    knob = _scan(tmp_path).knob("D")
    assert knob is not None
    assert knob.sites[0].gate.on_values == ("1",)
    assert "yes" in runs and "OFF" in runs  # the second round of spellings, each run


EQUAL = "import os\n\n\ndef equal():\n    return os.environ.get('A', '0') == '1'\n"
KEPT = "import os\n\n\ndef kept():\n    value = os.getenv('D', '0')\n    return value == '1'\n"
