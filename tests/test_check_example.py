"""The example's registry is in sync, and a new fusion in a copy of it fails with one line."""

from __future__ import annotations

import shutil
from pathlib import Path

from tests.conftest import REPO, run_knobs

NEW_GATE = """

def use_fused_gelu() -> bool:
    return os.environ.get("TOY_GELU_TRITON", "1") != "0"
"""


def test_a_new_default_on_gate_in_the_example_fails_with_one_line(tmp_path: Path) -> None:
    copy = tmp_path / "examples"
    shutil.copytree(REPO / "examples", copy, ignore=shutil.ignore_patterns("__pycache__"))
    clean = run_knobs("check", cwd=copy)
    assert (clean.returncode, clean.stdout) == (
        0,
        "No problems: 12 knobs in 10 files checked against registry.yaml (policy all).\n",
    )
    layers = copy / "toymodel" / "layers.py"
    lines = layers.read_text().count("\n")
    layers.write_text(layers.read_text() + NEW_GATE)
    drift = run_knobs("check", cwd=copy)
    assert drift.returncode == 1
    assert drift.stdout == (
        f"toymodel/layers.py:{lines + 4}:12: KNB001 error: TOY_GELU_TRITON is not registered in "
        'registry.yaml: it is on by default ("0" turns it off) and read here.\n'
        "    Register it in registry.yaml under `knobs:`, then triage it:\n"
        "      TOY_GELU_TRITON:\n"
        '        default: "1"\n'
        "        default_on: true\n"
        "        role:\n"
        "          proposed: unknown\n"
        '          reason: "the name TOY_GELU_TRITON says TRITON'
        ", a hint of a kernel choice, but no code it reaches"
        ' shows one: words alone are not evidence"\n'
        "        triage: untriaged\n"
        "\n"
        "Found 1 error: 13 knobs in 10 files checked against registry.yaml (policy all).\n"
    )
