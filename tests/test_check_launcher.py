"""The launcher layer reaches `knobs check`: a hook's implications against the profiles."""

from __future__ import annotations

from pathlib import Path

import pytest

from knobregistry.check.profile_checks import check_profiles
from knobregistry.registry import load_registry
from scanner import Settings, scan
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
        "registry.yaml:25:7: KNB106 error: profile 'bitwise' sets NCCL_ALGO to \"Tree\" "
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
    result = scan([tmp_path / hook], Settings(match=registry.scan.match), root=tmp_path)
    found = check_profiles(registry, result, cwd=REPO, torchtitan=titan_of(registry))
    assert sorted((d.code, d.knob) for d in found if d.code in ("KNB106", "KNB111")) == codes


OVERRIDE_REGISTRY = """\
version: 1
scan:
  paths: [src, launch]
  match: ["DEMO_*"]
knobs:
  DEMO_FUSED:
    default: "1"
    default_on: true
    triage: breaks-bitwise
  DEMO_DETERMINISTIC:
    default: "0"
    default_on: false
    triage: exempt
    reason: The deterministic-mode switch itself.
profiles:
  bitwise:
    kind: bitwise
    description: Bit-for-bit reproducible runs.
    env:
      DEMO_FUSED: "0"
      DEMO_DETERMINISTIC: "1"
"""

OVERRIDE_SOURCE = """\
import os

FUSED = os.environ.get("DEMO_FUSED", "1") != "0"
DETERMINISTIC = os.environ.get("DEMO_DETERMINISTIC", "0") == "1"
"""


def _override_project(tmp_path: Path, launcher: str) -> Path:
    return write_tree(
        tmp_path,
        {
            "registry.yaml": OVERRIDE_REGISTRY,
            "src/model.py": OVERRIDE_SOURCE,
            "launch/run.sh": "#!/bin/bash\n" + launcher,
        },
    )


def test_a_launcher_that_turns_a_bitwise_knob_back_on_is_a_note(tmp_path: Path) -> None:
    root = _override_project(tmp_path, "export DEMO_FUSED=1\npython -m src.model\n")
    result = run_knobs("check", cwd=root)
    assert (result.returncode, result.stderr) == (0, "")
    lines = [line for line in result.stdout.splitlines() if "KNB114" in line]
    assert lines == [
        "registry.yaml:20:7: KNB114 note: profile 'bitwise' (kind bitwise) sets DEMO_FUSED to "
        '"0" '
        "(profiles.bitwise.env.DEMO_FUSED), which the code reads as off, but the launcher at "
        'launch/run.sh:2:8 sets it to "1" (export), which the code reads as on: a run started '
        "through it has DEMO_FUSED on."
    ]
    after = result.stdout.splitlines()[result.stdout.splitlines().index(lines[0]) + 1]
    assert after == (
        "    keep a value already set in the launcher (`DEMO_FUSED=${DEMO_FUSED:-1}`), or "
        "remove the write, or start the profile's runs another way."
    )


@pytest.mark.parametrize(
    ("launcher", "codes"),
    [
        ("export DEMO_FUSED=1\n", ["KNB114"]),
        ("DEMO_FUSED=1 python -m src.model\n", ["KNB114"]),
        ("env DEMO_FUSED=true python -m src.model\n", ["KNB114"]),
        ("docker run -e DEMO_FUSED=1 img\n", ["KNB114"]),
        ("if [[ -f /opt/fast ]]; then\n  export DEMO_FUSED=1\nfi\n", ["KNB114"]),
        ("export DEMO_FUSED=0\n", []),  # agrees with the profile
        ("export DEMO_FUSED=$(pick)\n", []),  # computed: not known, never judged
        ("export DEMO_FUSED=${DEMO_FUSED:-1}\n", []),  # keeps the profile's value
        ("docker run -e DEMO_FUSED img\n", []),  # passed through
        # under a condition the profile sets: KNB106's (and the values agree here)
        ('if [[ "${DEMO_DETERMINISTIC:-0}" == "1" ]]; then\n  export DEMO_FUSED=1\nfi\n', []),
        # under a test of a variable the profile sets, which the check cannot evaluate
        ('if [[ "${DEMO_DETERMINISTIC:-0}" != "1" ]]; then\n  export DEMO_FUSED=1\nfi\n', []),
    ],
    ids=[
        "export",
        "prefix",
        "env-command",
        "docker-env",
        "under-a-file-test",
        "agrees",
        "computed",
        "keeps-a-set-value",
        "passed-through",
        "under-the-profiles-condition",
        "not-under-the-profiles-condition",
    ],
)
def test_which_launcher_writes_are_held_to_the_bitwise_profile(
    tmp_path: Path, launcher: str, codes: list[str]
) -> None:
    root = _override_project(tmp_path, launcher)
    registry = load_registry(root / "registry.yaml")
    result = scan([root / "src", root / "launch"], Settings(match=registry.scan.match), root=root)
    found = check_profiles(registry, result, cwd=root, torchtitan=titan_of(registry))
    assert [d.code for d in found if d.code == "KNB114"] == codes


DEFAULT_REGISTRY = """\
version: 1
scan:
  paths: [launch]
  match: ["DEMO_*"]
knobs:
  DEMO_ROOT:
    default: "/data/runs"
    default_on: null
    triage: exempt
    reason: Where runs are written, not a kernel switch.
"""


@pytest.mark.parametrize(
    ("launcher", "codes"),
    [
        ('echo "${DEMO_ROOT:-${BASE}/runs}"\n', []),  # computed: not known, so no drift
        ('echo "${DEMO_ROOT:-$(realpath runs)}"\n', []),
        ('echo "${DEMO_ROOT:-/data/runs}"\n', []),
        ('echo "${DEMO_ROOT:-/scratch/runs}"\n', ["KNB003"]),
    ],
    ids=["expansion", "command", "same-literal", "other-literal"],
)
def test_a_computed_shell_default_never_drifts(
    tmp_path: Path, launcher: str, codes: list[str]
) -> None:
    write_tree(tmp_path, {"registry.yaml": DEFAULT_REGISTRY, "launch/run.sh": launcher})
    result = run_knobs("check", "--format", "json", cwd=tmp_path)
    import json

    found = [d["code"] for d in json.loads(result.stdout)["diagnostics"]]
    assert found == codes


def test_an_unregistered_knob_with_a_computed_default_says_so(tmp_path: Path) -> None:
    write_tree(
        tmp_path,
        {
            "registry.yaml": DEFAULT_REGISTRY,
            "launch/run.sh": 'echo "${DEMO_ROOT:-/data/runs}" "${DEMO_CACHE:-${HOME}/c}"\n',
        },
    )
    result = run_knobs("check", cwd=tmp_path)
    assert result.stdout.splitlines()[0] == (
        "launch/run.sh:1:34: KNB001 error: DEMO_CACHE is not registered in registry.yaml: it is a "
        "value knob (default computed when it runs: ${HOME}/c) and read here."
    )


def test_a_finding_quoting_a_default_over_several_lines_is_one_line(tmp_path: Path) -> None:
    # SkyRL a9564572 examples/train/amd/run_tinker_server_amd.sh:78-95: a heredoc default.
    write_tree(
        tmp_path,
        {
            "registry.yaml": DEFAULT_REGISTRY,
            "launch/run.sh": 'echo "${DEMO_CFG:-$(cat <<JSON\n{"a": 1}\nJSON\n)}"\n',
        },
    )
    result = run_knobs("check", cwd=tmp_path)
    assert result.stdout.splitlines()[0] == (
        "launch/run.sh:1:7: KNB001 error: DEMO_CFG is not registered in registry.yaml: it is a "
        'value knob (default computed when it runs: $(cat <<JSON\\n{"a": 1}\\nJSON\\n)) and read '
        "here."
    )
