"""The launcher layer reaches `knobs check`: a hook's implications against the profiles."""

from __future__ import annotations

from pathlib import Path

import pytest

from knobregistry.profile_checks import check_profiles
from knobregistry.registry import load_registry
from scanner import scan
from tests.conftest import REPO, run_knobs, write_tree
from tests.test_profiles_checks import PRIMUS_LIKE_HOOK, titan_of

HOOK = """\
#!/bin/bash
# When asked for a deterministic run, print the variables the runner must export.
set -euo pipefail

if [[ "${DEMO_DETERMINISTIC:-0}" != "1" ]]; then
    exit 0
fi

echo "env.NCCL_ALGO=Ring"
echo "env.DEMO_AUTOTUNE=0"
"""

SOURCE = """\
import os

DETERMINISTIC = os.environ.get("DEMO_DETERMINISTIC", "0") == "1"
AUTOTUNE = os.environ.get("DEMO_AUTOTUNE", "1") != "0"
"""

REGISTRY = """\
version: 1
scan:
  paths: [src, launcher]
  match: ["DEMO_*", "NCCL_*"]
knobs:
  DEMO_DETERMINISTIC:
    default: "0"
    default_on: false
    triage: exempt
    reason: The deterministic-mode switch itself.
  DEMO_AUTOTUNE:
    default: "1"
    default_on: true
    triage: breaks-bitwise
external:
  NCCL_ALGO:
    description: Collective algorithm, read by NCCL/RCCL.
profiles:
  bitwise:
    kind: bitwise
    description: Bit-for-bit reproducible runs.
    env:
      DEMO_DETERMINISTIC: "1"
      DEMO_AUTOTUNE: "0"
      NCCL_ALGO: {algo}
"""


@pytest.fixture
def project(tmp_path: Path) -> Path:
    return write_tree(
        tmp_path,
        {"src/model.py": SOURCE, "launcher/hooks/05_deterministic.sh": HOOK},
    )


def test_a_profile_that_contradicts_the_hook_fails_naming_both_sites(project: Path) -> None:
    (project / "registry.yaml").write_text(REGISTRY.format(algo="Tree"), encoding="utf-8")
    result = run_knobs("check", cwd=project)
    assert (result.returncode, result.stderr) == (1, "")
    lines = [line for line in result.stdout.splitlines() if "KNB106" in line]
    assert lines == [
        "registry.yaml:25:7: KNB106 profile 'bitwise' sets NCCL_ALGO to \"Tree\" "
        '(profiles.bitwise.env.NCCL_ALGO), but with DEMO_DETERMINISTIC="1", which it also '
        'sets, the launcher sets NCCL_ALGO to "Ring" at '
        "launcher/hooks/05_deterministic.sh:9:1: the run gets whichever is applied last."
    ]


def test_a_profile_that_restates_the_hook_passes(project: Path) -> None:
    (project / "registry.yaml").write_text(REGISTRY.format(algo="Ring"), encoding="utf-8")
    result = run_knobs("check", cwd=project)
    assert (result.returncode, result.stderr) == (0, "")
    assert "No problems" in result.stdout


def test_the_scan_lists_the_hook_writes_with_their_condition(project: Path) -> None:
    result = run_knobs("scan", "launcher", "--format", "json", cwd=project)
    import json

    writes = json.loads(result.stdout)["writes"]
    assert [(w["name"], w["value"], w["kind"], w["when"], w["line"]) for w in writes] == [
        ("NCCL_ALGO", "Ring", "printed", {"DEMO_DETERMINISTIC": "1"}, 9),
        ("DEMO_AUTOTUNE", "0", "printed", {"DEMO_DETERMINISTIC": "1"}, 10),
    ]


@pytest.mark.parametrize(
    ("line", "codes"),
    [
        ('echo "env.NCCL_ALGO=Ring"', []),
        ('echo "env.NCCL_ALGO=Tree"', [("KNB106", "NCCL_ALGO")]),
        ("# the line is gone", [("KNB111", "NCCL_ALGO")]),
    ],
    ids=["restated", "contradicted", "gone"],
)
def test_the_repository_bitwise_profile_is_held_to_the_hook(
    tmp_path: Path, line: str, codes: list[tuple[str, str]]
) -> None:
    registry = load_registry(REPO / "registry.yaml")
    hook = registry.scan.paths[1]
    write_tree(tmp_path, {hook: PRIMUS_LIKE_HOOK.format(algo=line)})
    result = scan([tmp_path / hook], match=registry.scan.match, root=tmp_path)
    found = check_profiles(registry, result, cwd=REPO, torchtitan=titan_of(registry))
    assert sorted((d.code, d.knob) for d in found if d.code in ("KNB106", "KNB111")) == codes
