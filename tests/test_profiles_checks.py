"""The KNB1xx profile checks: for each, a failing and a passing registry, golden messages.

Each case writes a real registry and a real source tree, scans it with the
scanner, and compares every rendered diagnostic (line, fix and severity).
"""

from __future__ import annotations

import textwrap
from collections.abc import Callable, Mapping
from dataclasses import replace
from pathlib import Path

import pytest

from knobregistry.check.diagnostics import Diagnostic, Rule
from knobregistry.check.profile_checks import PROFILES, check_profiles
from knobregistry.profiles.megatron import MegatronFields, MegatronMissing
from knobregistry.profiles.torchtitan import TorchTitanFields
from knobregistry.registry import Registry, load_registry
from scanner import Settings, scan
from tests.conftest import REPO, write_tree
from tests.docs_pages import docs_page

SOURCE = """
import os


def attention():
    return os.environ.get("DEMO_ATTN_TRITON", "1") != "0"


def norm():
    return os.environ.get("DEMO_NORM_TRITON", "1") != "0"


def strict():
    return os.environ.get("DEMO_STRICT", "0") == "1"
"""

# A new fusion: its switch, and the branch that runs Liger-Kernel's Triton RMSNorm
# (liger_kernel/ops/rms_norm.py) instead of plain tensor ops (a library not in the
# catalogue, so the stack's settings stay out of these checks).
NEW_FUSION = """
import os


def new_fusion():
    return os.environ.get("DEMO_NEW_TRITON", "1") != "0"


def norm(x, weight):
    if new_fusion():
        from liger_kernel.ops.rms_norm import LigerRMSNormFunction

        return LigerRMSNormFunction.apply(x, weight, 1e-6)
    return x * (x.pow(2).mean(-1, keepdim=True) + 1e-6).rsqrt() * weight
"""

KNOBS = """\
version: 1
scan:
  paths: [src]
  match: ["DEMO_*"]
knobs:
  DEMO_ATTN_TRITON:
    default: "1"
    default_on: true
    triage: breaks-bitwise
  DEMO_NORM_TRITON:
    default: "1"
    default_on: true
    triage: reproducible
  DEMO_STRICT:
    default: "0"
    default_on: false
    triage: untriaged
external:
  NCCL_ALGO:
    description: Collective algorithm.
"""

NO_MEGATRON = MegatronMissing("megatron-core is not installed")


# The launcher hook of the repository registry's scope, as Primus's prints it ({algo}: the
# NCCL_ALGO line).
PRIMUS_LIKE_HOOK = """\
#!/bin/bash
if [[ "${{PRIMUS_DETERMINISTIC:-0}}" != "1" ]]; then
    exit 0
fi
{algo}
echo "env.NVTE_ALLOW_NONDETERMINISTIC_ALGO=0"
echo "env.ROCBLAS_DEFAULT_ATOMICS_MODE=0"
echo "env.TORCH_COMPILE_DISABLE=1"
echo "env.PRIMUS_TURBO_AUTO_TUNE=0"
"""


def titan_of(registry: Registry) -> Callable[[], TorchTitanFields]:
    """A torchtitan lookup that defines exactly the registry's torchtitan keys (their real
    check is tests/test_profiles_torchtitan.py's)."""
    keys = frozenset(k.name for k in registry.config.values() if k.backend == "torchtitan")
    return lambda: TorchTitanFields("0.0-test", "Trainer.Config", keys)


def fake_megatron(*names: str) -> MegatronFields:
    return MegatronFields(
        "0.0-test", dict.fromkeys(names, "TransformerConfig"), ("TransformerConfig",)
    )


def run(
    tmp_path: Path,
    profiles: str,
    *,
    knobs: str = KNOBS,
    files: Mapping[str, str] | None = None,
    megatron: MegatronFields | MegatronMissing = NO_MEGATRON,
    full_scope: bool = True,
) -> list[str]:
    text = knobs + "profiles:\n" + textwrap.indent(textwrap.dedent(profiles).strip("\n"), "  ")
    write_tree(tmp_path, {"registry.yaml": text + "\n", "src/gates.py": SOURCE, **(files or {})})
    registry = load_registry(tmp_path / "registry.yaml")
    result = scan(registry.scan_paths(), Settings(match=registry.scan.match), root=registry.root)
    found = check_profiles(
        registry, result, cwd=tmp_path, megatron=lambda: megatron, full_scope=full_scope
    )
    return [line for d in found for line in _show(d)]


def _show(d: Diagnostic) -> list[str]:
    return [f"{d.severity.value}: {d.render()}", f"  fix: {d.fix}"]


BITWISE_COVERED = """
bitwise:
  description: Bit for bit.
  kind: bitwise
  select:
    - default_on: true
      triage_not: reproducible
      set: "off"
"""


def test_knb101_passes_when_a_rule_covers_every_hole(tmp_path: Path) -> None:
    assert run(tmp_path, BITWISE_COVERED) == []


def test_knb101_a_bitwise_profile_that_forgets_a_knob(tmp_path: Path) -> None:
    profiles = """
    bitwise:
      description: Bit for bit.
      kind: bitwise
      env:
        NCCL_ALGO: Ring
    custom:
      description: Not held to bitwise.
    """
    assert run(tmp_path, profiles) == [
        "error: registry.yaml:22:3: KNB101 error: profile 'bitwise' (kind bitwise) leaves "
        "DEMO_ATTN_TRITON on: it is on by default and triaged 'breaks-bitwise', and the "
        "profile does not set it.",
        '  fix: set `DEMO_ATTN_TRITON: "0"` under profiles.bitwise.env.',
    ]


def test_knb101_leaves_a_new_fusion_to_knb001_when_a_rule_will_cover_it(tmp_path: Path) -> None:
    # Registering the knob (KNB001's fix) is all it takes: the select rule then turns it
    # off, so telling the user to list it under env as well would be the wrong advice.
    assert run(tmp_path, BITWISE_COVERED, files={"src/new.py": NEW_FUSION}) == []


def test_knb101_a_new_fusion_that_no_rule_would_cover(tmp_path: Path) -> None:
    profiles = """
    bitwise:
      description: Bit for bit, by hand.
      kind: bitwise
      env: {DEMO_ATTN_TRITON: "0", DEMO_NORM_TRITON: "0"}
    """
    found = run(tmp_path, profiles, files={"src/new.py": NEW_FUSION})
    assert found == [
        "error: registry.yaml:22:3: KNB101 error: profile 'bitwise' (kind bitwise) leaves "
        "DEMO_NEW_TRITON on: it is on by default and not registered, and the profile does not "
        "set it.",
        '  fix: set `DEMO_NEW_TRITON: "0"` under profiles.bitwise.env.',
    ]


def test_knb101_a_value_that_keeps_it_on(tmp_path: Path) -> None:
    profiles = """
    bitwise:
      description: Bit for bit.
      kind: bitwise
      env:
        DEMO_ATTN_TRITON: "yes"
    """
    assert run(tmp_path, profiles) == [
        "error: registry.yaml:26:7: KNB101 error: profile 'bitwise' (kind bitwise) leaves "
        "DEMO_ATTN_TRITON on: it is on by default and triaged 'breaks-bitwise', and the "
        'profile sets it to "yes" (profiles.bitwise.env.DEMO_ATTN_TRITON), which keeps it on.',
        '  fix: set `DEMO_ATTN_TRITON: "0"` under profiles.bitwise.env.',
    ]


def test_knb102_passes_for_read_and_declared_variables(tmp_path: Path) -> None:
    profiles = """
    custom:
      description: Sets what is read or declared.
      env: {NCCL_ALGO: Ring, DEMO_NORM_TRITON: "1"}
    """
    assert run(tmp_path, profiles) == []


def test_knb102_variables_nobody_reads(tmp_path: Path) -> None:
    profiles = """
    custom:
      description: Typos and strays.
      env:
        NCCL_ALGOO: Ring
        DEMO_ATTN_TRITN: "0"
        OMP_NUM_THREADS: "8"
    """
    assert run(tmp_path, profiles) == [
        "error: registry.yaml:25:7: KNB102 error: profile 'custom' sets NCCL_ALGOO, which the scan "
        "does not inventory (scan.match: DEMO_*) and no `external` entry declares; setting it "
        "changes nothing.",
        "  fix: rename it to NCCL_ALGO, or declare it under `external:` with the library that "
        "reads it (NCCL_ALGOO: {library: ..., description: ...}), or remove it from "
        "profiles.custom.env.",
        "error: registry.yaml:26:7: KNB102 error: profile 'custom' sets DEMO_ATTN_TRITN, which no "
        "scanned code reads and no `external` entry declares; setting it changes nothing.",
        "  fix: rename it to DEMO_ATTN_TRITON, or declare it under `external:` with the library "
        "that reads it (DEMO_ATTN_TRITN: {library: ..., description: ...}), or remove it from "
        "profiles.custom.env.",
        "error: registry.yaml:27:7: KNB102 error: profile 'custom' sets OMP_NUM_THREADS, which the "
        "scan does not inventory (scan.match: DEMO_*) and no `external` entry declares; setting "
        "it changes nothing.",
        "  fix: declare it under `external:` with the library that reads it (OMP_NUM_THREADS: "
        "{library: ..., description: ...}), or remove it from profiles.custom.env.",
    ]
    # Paths on the command line narrow the scan: KNB102 error: cannot tell, so it is skipped.
    assert run(tmp_path, profiles, full_scope=False) == []


def test_knb103_passes_for_values_the_gates_take(tmp_path: Path) -> None:
    profiles = """
    bitwise:
      description: Bit for bit.
      kind: bitwise
      env: {DEMO_ATTN_TRITON: "0", DEMO_NORM_TRITON: "0"}
    fast:
      description: Everything on.
      kind: fast
      env: {DEMO_STRICT: "1", DEMO_NORM_TRITON: "true"}
    """
    assert run(tmp_path, profiles) == []


def test_knb103_off_on_a_reproducible_knob(tmp_path: Path) -> None:
    profiles = """
    bitwise:
      description: Bit for bit.
      kind: bitwise
      env: {DEMO_ATTN_TRITON: "0", DEMO_NORM_TRITON: "off"}
    """
    # DEMO_NORM_TRITON is reproducible, so KNB101 does not care; KNB103 still says "off" is on.
    assert run(tmp_path, profiles) == [
        "error: registry.yaml:25:34: KNB103 error: profile 'bitwise' sets DEMO_NORM_TRITON to "
        '"off" '
        "to turn it off (profiles.bitwise.env.DEMO_NORM_TRITON), but the gate at "
        'src/gates.py:9:12 does not treat "off" as off; values that turn it off there: "0".',
        '  fix: write `DEMO_NORM_TRITON: "0"` under profiles.bitwise.env.',
    ]


def test_knb103_false_on_a_gate_that_only_tests_zero(tmp_path: Path) -> None:
    profiles = """
    bitwise:
      description: Bit for bit.
      kind: bitwise
      env:
        DEMO_ATTN_TRITON: "false"
    fast:
      description: Everything on.
      kind: fast
      env:
        DEMO_STRICT: "true"
    """
    assert run(tmp_path, profiles) == [
        "error: registry.yaml:26:7: KNB103 error: profile 'bitwise' sets DEMO_ATTN_TRITON to "
        '"false" '
        "to turn it off (profiles.bitwise.env.DEMO_ATTN_TRITON), but the gate at "
        'src/gates.py:5:12 does not treat "false" as off; values that turn it off there: "0".',
        '  fix: write `DEMO_ATTN_TRITON: "0"` under profiles.bitwise.env.',
        "error: registry.yaml:31:7: KNB103 error: profile 'fast' sets DEMO_STRICT to \"true\" to "
        "turn "
        "it on (profiles.fast.env.DEMO_STRICT), but the gate at src/gates.py:13:12 does not "
        'treat "true" as on; values that turn it on there: "1".',
        '  fix: write `DEMO_STRICT: "1"` under profiles.fast.env.',
    ]


def test_knb103_a_registered_off_value_the_gate_ignores(tmp_path: Path) -> None:
    knobs = KNOBS.replace(
        "    triage: breaks-bitwise\n", "    triage: breaks-bitwise\n    off_value: disabled\n"
    )
    assert run(tmp_path, BITWISE_COVERED, knobs=knobs) == [
        "error: registry.yaml:27:9: KNB103 error: profile 'bitwise' sets DEMO_ATTN_TRITON to "
        '"disabled" to turn it off (profiles.bitwise.select[0]), but the gate at '
        'src/gates.py:5:12 does not treat "disabled" as off; values that turn it off there: "0".',
        '  fix: set `off_value: "0"` in knobs.DEMO_ATTN_TRITON, which profiles.bitwise.select[0] '
        "then writes.",
    ]


MEGATRON_KEYS = """\
config:
  deterministic_mode:
    backend: megatron
    description: Deterministic kernels.
  moe_router_force_load_balancing_type:
    backend: megatron
    description: Forced routing.
  seed:
    backend: megatron
    description: Seed.
    argument: --seed
  use_v4_attention_backend:
    backend: primus
    description: Attention backend.
"""


def test_knb104_passes_when_every_megatron_key_is_a_field(tmp_path: Path) -> None:
    megatron = fake_megatron("deterministic_mode", "moe_router_force_load_balancing_type")
    assert run(tmp_path, BITWISE_COVERED, knobs=KNOBS + MEGATRON_KEYS, megatron=megatron) == []


def test_knb104_a_megatron_key_megatron_does_not_define(tmp_path: Path) -> None:
    megatron = fake_megatron("deterministic_mode", "moe_router_force_load_balancing")
    found = run(tmp_path, BITWISE_COVERED, knobs=KNOBS + MEGATRON_KEYS, megatron=megatron)
    assert found == [
        "error: registry.yaml:25:3: KNB104 error: config key "
        "'moe_router_force_load_balancing_type' is "
        "declared `backend: megatron`, but megatron-core 0.0-test defines no field of that name "
        "in TransformerConfig.",
        "  fix: rename it to 'moe_router_force_load_balancing' (TransformerConfig); or if it is "
        "a Megatron command-line argument, add `argument: "
        "--moe-router-force-load-balancing-type` under config.moe_router_force_load_balancing_type"
        "; if Primus adds it, write `backend: primus`.",
    ]


def test_knb105_a_note_when_megatron_core_is_missing(tmp_path: Path) -> None:
    found = run(tmp_path, BITWISE_COVERED, knobs=KNOBS + MEGATRON_KEYS)
    assert found == [
        "note: registry.yaml:22:3: KNB105 note: megatron-core is not installed, so 2 config keys "
        "declared `backend: megatron` (deterministic_mode, moe_router_force_load_balancing_type) "
        "were not checked against its config dataclasses.",
        "  fix: pip install megatron-core",
    ]
    # Nothing to check, nothing to say: keys marked `argument`, and other backends.
    seed_and_primus = """\
config:
  seed:
    backend: megatron
    description: Seed.
    argument: --seed
  use_v4_attention_backend:
    backend: primus
    description: Attention backend.
"""
    assert run(tmp_path, BITWISE_COVERED, knobs=KNOBS + seed_and_primus) == []


# The new fusion's branch: it runs Liger-Kernel's Triton RMSNorm, a library the catalogue
# does not hold (a Triton kernel of the tree's own would import triton, and the catalogue's
# settings for a project using triton are not what this test is about).
MHC_BRANCH = """


def mhc(x, weight):
    if new():
        from liger_kernel.ops.rms_norm import LigerRMSNormFunction

        return LigerRMSNormFunction.apply(x, weight, 1e-6)
    return x
"""


def test_repository_registry_profiles_agree_with_a_primus_like_tree(tmp_path: Path) -> None:
    """The repository's registry, over a tree that reads its knobs as Primus does."""
    registry = load_registry(REPO / "registry.yaml")
    lines = ["import os", ""]
    for index, (name, entry) in enumerate(registry.knobs.items()):
        if entry.on_value not in (None, "1"):  # a selector: on is the value it names
            test = f'os.environ.get("{name}", "{entry.default}") == "{entry.on_value}"'
        else:
            test = f'os.environ.get("{name}", "1") != "0"'
        lines += [f"def f{index}():", f"    return {test}", ""]
    hook = PRIMUS_LIKE_HOOK.format(algo='echo "env.NCCL_ALGO=Ring"')
    tree = write_tree(
        tmp_path,
        {
            "primus/backends/megatron/core/transformer/v4.py": "\n".join(lines),
            registry.scan.paths[1]: hook,
        },
    )
    scope = [tree / registry.scan.paths[0], tree / registry.scan.paths[1]]
    result = scan(scope, Settings(match=registry.scan.match), root=tree)
    # The registry stands in the tree it describes (KNB113 reads the project's files there).
    registry = replace(registry, root=tree)
    megatron = fake_megatron(
        "deterministic_mode",
        "cross_entropy_loss_fusion",
        "gradient_accumulation_fusion",
        "moe_permute_fusion",
        "moe_use_legacy_grouped_gemm",
    )
    assert (
        check_profiles(
            registry, result, cwd=REPO, megatron=lambda: megatron, torchtitan=titan_of(registry)
        )
        == []
    )
    fusion = "\n".join(
        [*lines, "def new():", '    return os.environ.get("PRIMUS_MHC_TRITON", "1") != "0"']
    )
    write_tree(tree, {"primus/backends/megatron/core/transformer/v4.py": fusion + MHC_BRANCH})
    result = scan(scope, Settings(match=registry.scan.match), root=tree)
    # The bitwise profile's select rule covers a new fusion once it is registered, so the
    # profile check leaves it to KNB001 ...
    assert (
        check_profiles(
            registry, result, cwd=REPO, megatron=lambda: megatron, torchtitan=titan_of(registry)
        )
        == []
    )
    # ... and without that rule, the hole is the profile's to report.
    bitwise = registry.profiles["bitwise"]
    by_hand = replace(
        registry, profiles={**registry.profiles, "bitwise": replace(bitwise, select=())}
    )
    found = check_profiles(
        by_hand, result, cwd=REPO, megatron=lambda: megatron, torchtitan=titan_of(by_hand)
    )
    assert [(d.code, d.knob) for d in found] == [("KNB101", "PRIMUS_MHC_TRITON")]


@pytest.mark.parametrize("rule", PROFILES.rules, ids=lambda r: r.code)
def test_every_code_is_documented(rule: Rule) -> None:
    docs = docs_page("profiles.md")
    row = f"| {rule.code} | {rule.name} | {rule.severity.value} | {rule.title} |"
    assert row in docs.splitlines()
    assert f"### {rule.code} {rule.name}" in docs.splitlines()
    assert rule.help.endswith(".") and rule.title.endswith(".")


def test_codes_are_stable() -> None:
    assert [r.code for r in PROFILES.rules] == [
        *("KNB101", "KNB102", "KNB103", "KNB104", "KNB105"),
        *("KNB106", "KNB107", "KNB108", "KNB109", "KNB110", "KNB111", "KNB112", "KNB113"),
        *("KNB114", "KNB115"),
    ]
