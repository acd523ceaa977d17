"""Polarity and launch facts through the real command line: policies, profiles and views speak
of the feature (X_DISABLE_FUSED_ADAM=1 turns the fused Adam off); launch facts are no switches."""

from __future__ import annotations

from pathlib import Path

import pytest

from knobregistry.init.starter import PROFILES
from knobregistry.registry import loads_registry
from knobregistry.triage import TriageKnob, make_plan
from scanner import Polarity
from tests.conftest import run_knobs, write_tree
from tests.sample_project import check, edit

# Two switches whose code chooses a kernel library's fused path over plain PyTorch:
# Liger-Kernel's Triton RMSNorm (liger_kernel/ops/rms_norm.py) and Apex's FusedAdam (as
# training scripts import it, `from apex.optimizers import FusedAdam`); the second is named
# for turning its kernel off. Neither library is in the catalogue, so the stack's settings
# stay out of these checks.
FUSED = """
    import os

    ADAM_OFF = os.environ.get("X_DISABLE_FUSED_ADAM", "0") == "1"
    HC = os.environ.get("X_HC_TRITON", "1") != "0"
    FP8 = os.environ.get("X_FP8", "0") == "1"
    RANK = int(os.environ.get("RANK", "0"))
    WORLD = int(os.environ["WORLD_SIZE"])
    PORT = os.environ.get("MASTER_PORT", "29500")


    def step(x, params):
        if HC:
            from liger_kernel.ops.rms_norm import LigerRMSNormFunction

            x = LigerRMSNormFunction.apply(x)
        if not ADAM_OFF:
            from apex.optimizers import FusedAdam

            return x, FusedAdam(params)
        return x, None
    """

REGISTRY = """
    version: 1
    scan:
      paths: [pkg]
      policy: default-on
    knobs: {}
    profiles:
      bitwise:
        description: Every fusion that is not reproducible, off.
        kind: bitwise
        select:
          - default_on: true
            triage_not: reproducible
            set: "off"
    """

# The two knobs `knobs check` demands, registered as its fixes say.
ENTRIES = """\
knobs:
  X_DISABLE_FUSED_ADAM:
    default: "0"
    default_on: false
    polarity: disable
    role:
      proposed: kernel
      reason: "unset, it runs the branch of `not ADAM_OFF` at pkg/fused.py:16, which reaches NVIDIA Apex (apex.optimizers.FusedAdam) at pkg/fused.py:19; X_DISABLE_FUSED_ADAM='1' leaves that branch, and what runs instead reaches no such kernel"
    triage: untriaged
  X_HC_TRITON:
    default: "1"
    default_on: true
    role:
      proposed: kernel
      reason: "unset, it runs the branch of `HC` at pkg/fused.py:12, which reaches Liger-Kernel (liger_kernel.ops.rms_norm.LigerRMSNormFunction.apply) at pkg/fused.py:15; X_HC_TRITON='0' leaves that branch, and what runs instead reaches no such kernel"
    triage: untriaged
"""  # noqa: E501

DEMANDED = """\
pkg/fused.py:3:12: KNB001 error: X_DISABLE_FUSED_ADAM is not registered in registry.yaml: it is \
off by \
default, so the feature it disables is on ("1" turns the feature off) and read here.
    Register it in registry.yaml under `knobs:`, then triage it:
      X_DISABLE_FUSED_ADAM:
        default: "0"
        default_on: false
        polarity: disable
        role:
          proposed: kernel
          reason: "unset, it runs the branch of `not ADAM_OFF` at pkg/fused.py:16, which reaches NVIDIA Apex (apex.optimizers.FusedAdam) at pkg/fused.py:19; X_DISABLE_FUSED_ADAM='1' leaves that branch, and what runs instead reaches no such kernel"
        triage: untriaged
pkg/fused.py:4:6: KNB001 error: X_HC_TRITON is not registered in registry.yaml: it is on by \
default ("0" \
turns it off) and read here.
    Register it in registry.yaml under `knobs:`, then triage it:
      X_HC_TRITON:
        default: "1"
        default_on: true
        role:
          proposed: kernel
          reason: "unset, it runs the branch of `HC` at pkg/fused.py:12, which reaches Liger-Kernel (liger_kernel.ops.rms_norm.LigerRMSNormFunction.apply) at pkg/fused.py:15; X_HC_TRITON='0' leaves that branch, and what runs instead reaches no such kernel"
        triage: untriaged

Found 2 errors: 6 knobs in 2 files checked against registry.yaml (policy default-on).
"""  # noqa: E501

EXPORT = """\
export X_DISABLE_FUSED_ADAM='1'
export X_HC_TRITON='0'
"""


@pytest.fixture
def root(tmp_path: Path) -> Path:
    return write_tree(
        tmp_path, {"pkg/__init__.py": "", "pkg/fused.py": FUSED, "registry.yaml": REGISTRY}
    )


def register(root: Path, entries: str = ENTRIES) -> None:
    edit(root / "registry.yaml", "knobs: {}\n", entries)


def test_default_on_demands_a_disable_knob_whose_feature_is_on_and_no_launch_fact(
    root: Path,
) -> None:
    assert check(root) == (1, DEMANDED, "")


def test_bitwise_turns_the_feature_off_with_the_on_value(root: Path) -> None:
    register(root)
    assert check(root) == (
        0,
        "No problems: 6 knobs in 2 files checked against registry.yaml (policy default-on).\n",
        "",
    )
    result = run_knobs("export", "--profile", "bitwise", cwd=root)
    assert result.returncode == 0
    assert result.stdout.endswith("# generated by knobs export; do not edit\n" + EXPORT)
    scanned = run_knobs("export", "--profile", "bitwise", "--scan", cwd=root)
    assert scanned.stdout == result.stdout


def test_an_entry_without_its_polarity_is_a_hole_in_the_bitwise_profile(root: Path) -> None:
    register(root, ENTRIES.replace("    polarity: disable\n", ""))
    code, out, _ = check(root)
    assert code == 1
    assert out == (
        "registry.yaml:21:3: KNB101 error: profile 'bitwise' (kind bitwise) leaves on the feature "
        "that "
        "X_DISABLE_FUSED_ADAM disables: it is on by default and triaged 'untriaged', and the "
        "profile does not set it.\n"
        "    add `polarity: disable` to knobs.X_DISABLE_FUSED_ADAM (turning it on turns its "
        "feature off, so the feature is on by default); the profile's select rules then see "
        'it, or set `X_DISABLE_FUSED_ADAM: "1"` under profiles.bitwise.env.\n'
        "\n"
        "Found 1 error: 6 knobs in 2 files checked against registry.yaml (policy default-on).\n"
    )
    exported = run_knobs("export", "--profile", "bitwise", cwd=root).stdout
    assert "X_DISABLE_FUSED_ADAM" not in exported  # the hole the check reports


def test_launch_facts_are_not_demanded_even_when_they_conflict(root: Path) -> None:
    (root / "pkg/other.py").write_text(
        'import os\n\nRANK = os.environ.get("RANK", "1")\n', encoding="utf-8"
    )
    register(root)
    assert check(root)[0:2] == (
        0,
        "No problems: 6 knobs in 3 files checked against registry.yaml (policy default-on).\n",
    )
    edit(root / "registry.yaml", "policy: default-on", "policy: all")
    _, out, _ = check(root)
    assert [line.split(" ")[1] for line in out.splitlines() if ": KNB" in line] == [
        "KNB001",  # X_FP8: policy all wants every knob, launch facts too
        "KNB001",
        "KNB001",
        "KNB001",
    ]
    assert "RANK is not registered in registry.yaml: it is a launch fact (set by the " in out
    assert "KNB004" not in out


def test_launch_facts_can_be_registered_as_exempt(root: Path) -> None:
    register(
        root,
        ENTRIES
        + '  RANK:\n    default: "0"\n    default_on: null\n    triage: exempt\n'
        + "    reason: Set by the launcher.\n",
    )
    assert check(root)[0] == 0
    result = run_knobs("explain", "RANK", cwd=root)
    assert '  default "0"; a launch fact (set by the launcher, not a switch)\n' in result.stdout


TABLE = """\
knob                  default  on by default?  polarity  role     off value  read in  sites
────────────────────────────────────────────────────────────────────────────────────────────────────
MASTER_PORT           '29500'  launch          -         fact     -          py       pkg/fused.py:8
RANK                  '0'      launch          -         fact     -          py       pkg/fused.py:6
WORLD_SIZE            -        launch          -         fact     -          py       pkg/fused.py:7
X_DISABLE_FUSED_ADAM  '0'      no              disable   kernel   '0'        py       pkg/fused.py:3
X_FP8                 '0'      no              enable    feature  '0'        py       pkg/fused.py:5
X_HC_TRITON           '1'      yes             enable    kernel   '0'        py       pkg/fused.py:4

6 knobs (1 on by default), 0 dynamic reads, 0 errors; 2 files scanned.
"""


def test_the_scan_table_shows_polarity_and_launch_facts(root: Path) -> None:
    result = run_knobs("scan", "pkg", cwd=root)
    assert (result.returncode, result.stdout, result.stderr) == (0, TABLE, "")
    assert max(len(line) for line in TABLE.splitlines()) <= 100


EXPLAIN = """\
X_DISABLE_FUSED_ADAM
  registry   registry.yaml:6:3
  default    "0", off by default
  polarity   disable: turning it on turns its feature off (the feature is on by default)
  role       kernel (proposed: unset, it runs the branch of `not ADAM_OFF` at pkg/fused.py:16, which reaches NVIDIA Apex
             (apex.optimizers.FusedAdam) at pkg/fused.py:19; X_DISABLE_FUSED_ADAM='1' leaves that branch, and what runs
             instead reaches no such kernel)
  triage     untriaged
  evidence   -
  cost       -
  owner      -
  profiles   bitwise: "1" (set by profiles.bitwise.select[0])

Read at 1 site: off by default, so the feature it disables is on ("1" turns the feature off).

pkg/fused.py:3:12 (in <module>)
  default "0"; on by default: no; polarity disable; turned on only by "1": any other value \
turns it off
    1 | import os
    2 |
  > 3 | ADAM_OFF = os.environ.get("X_DISABLE_FUSED_ADAM", "0") == "1"
    4 | HC = os.environ.get("X_HC_TRITON", "1") != "0"
    5 | FP8 = os.environ.get("X_FP8", "0") == "1"
"""  # noqa: E501


def test_explain_shows_the_polarity(root: Path) -> None:
    register(root)
    result = run_knobs("explain", "X_DISABLE_FUSED_ADAM", cwd=root)
    assert (result.returncode, result.stdout, result.stderr) == (0, EXPLAIN, "")


INIT = """\
# 6 knobs found by the scan, 1 of them on by default.
knobs:
  MASTER_PORT:
    # a launch fact (set by the launcher, not a switch); read at pkg/fused.py:8
    default: "29500"
    default_on: null
    role:
      proposed: fact
      reason: "set by the launcher or the system, not a switch"
    triage: untriaged

  RANK:
    # a launch fact (set by the launcher, not a switch); read at pkg/fused.py:6
    default: "0"
    default_on: null
    role:
      proposed: fact
      reason: "set by the launcher or the system, not a switch"
    triage: untriaged

  WORLD_SIZE:
    # a launch fact (set by the launcher, not a switch); read at pkg/fused.py:7
    default_on: null
    role:
      proposed: fact
      reason: "set by the launcher or the system, not a switch"
    required: true
    triage: untriaged

  X_DISABLE_FUSED_ADAM:
    # off by default, so the feature it disables is on ("1" turns the feature off); read at \
pkg/fused.py:3
    default: "0"
    default_on: false
    polarity: disable
    off_value: "0"
    role:
      proposed: kernel
      reason: "unset, it runs the branch of `not ADAM_OFF` at pkg/fused.py:16, which reaches NVIDIA Apex (apex.optimizers.FusedAdam) at pkg/fused.py:19; X_DISABLE_FUSED_ADAM='1' leaves that branch, and what runs instead reaches no such kernel"
    triage: untriaged

  X_FP8:
    # off by default ("1" turns it on); read at pkg/fused.py:5
    default: "0"
    default_on: false
    polarity: enable
    off_value: "0"
    role:
      proposed: feature
      reason: "the name X_FP8 says FP8 (what is computed or trained)"
    triage: untriaged

  X_HC_TRITON:
    # on by default ("0" turns it off); read at pkg/fused.py:4
    default: "1"
    default_on: true
    polarity: enable
    off_value: "0"
    role:
      proposed: kernel
      reason: "unset, it runs the branch of `HC` at pkg/fused.py:12, which reaches Liger-Kernel (liger_kernel.ops.rms_norm.LigerRMSNormFunction.apply) at pkg/fused.py:15; X_HC_TRITON='0' leaves that branch, and what runs instead reaches no such kernel"
    triage: untriaged
"""  # noqa: E501


def test_init_writes_the_polarity_of_every_switch(root: Path) -> None:
    (root / "registry.yaml").unlink()
    result = run_knobs("init", "pkg", cwd=root)
    assert (result.returncode, result.stderr) == (0, "")
    text = (root / "registry.yaml").read_text(encoding="utf-8")
    assert text.endswith(INIT + PROFILES)  # the starting bitwise profile (see test_init)
    registry = loads_registry(text, root / "registry.yaml")
    assert registry.knobs["X_DISABLE_FUSED_ADAM"].polarity is Polarity.DISABLE
    assert registry.knobs["X_HC_TRITON"].polarity is Polarity.ENABLE
    assert registry.knobs["RANK"].polarity is None
    assert check(root)[0] == 0


def test_init_writes_an_off_value_that_is_not_zero(tmp_path: Path) -> None:
    write_tree(
        tmp_path,
        {"pkg/cache.py": 'import os\n\nON = os.environ.get("X_CACHE", "on") != "off"\n'},
    )
    assert run_knobs("init", "pkg", cwd=tmp_path).returncode == 0
    text = (tmp_path / "registry.yaml").read_text(encoding="utf-8")
    assert text.endswith(
        "  X_CACHE:\n"
        '    # on by default ("off" turns it off); read at pkg/cache.py:3\n'
        '    default: "on"\n'
        "    default_on: true\n"
        "    polarity: enable\n"
        '    off_value: "off"\n'
        "    role:\n"
        "      proposed: unknown\n"
        '      reason: "the name X_CACHE says CACHE'
        ", a hint of a kernel choice, but no code it reaches"
        ' shows one: words alone are not evidence"\n'
        "    triage: untriaged\n" + PROFILES
    )
    assert check(tmp_path)[0] == 0


def test_triage_turns_a_disable_knob_back_on_with_its_off_value() -> None:
    registry = loads_registry(
        'version: 1\nknobs:\n  X_DISABLE_FUSED:\n    default: "0"\n    default_on: false\n'
        "    polarity: disable\n    role: kernel\n    triage: untriaged\n"
        "profiles:\n  bitwise:\n    description: Off.\n    kind: bitwise\n    select:\n"
        '      - {default_on: true, set: "off"}\n'
    )
    plan = make_plan(registry, "bitwise", ())
    assert plan.candidates == (TriageKnob("X_DISABLE_FUSED", "0", "1"),)
    assert plan.env == {"X_DISABLE_FUSED": "1"}


def test_generated_docs_say_what_a_disable_knob_does_to_its_feature(root: Path) -> None:
    register(root)
    page = run_knobs("docs", cwd=root).stdout
    assert (
        '| `X_DISABLE_FUSED_ADAM` | — | `"0"` (off; disables its feature, which is on) '
        "| untriaged | — |\n"
    ) in page
    assert '| `X_HC_TRITON` | — | `"1"` (on) | untriaged | — |\n' in page


def test_a_polarity_other_than_enable_or_disable_is_a_registry_error(root: Path) -> None:
    register(root, ENTRIES.replace("polarity: disable", "polarity: inverted"))
    code, out, err = check(root)
    assert (code, out) == (2, "")
    assert err == (
        "registry.yaml:9:5: knobs.X_DISABLE_FUSED_ADAM.polarity: expected one of 'enable', "
        "'disable', got 'inverted'\n"
    )
