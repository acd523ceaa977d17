"""Profile resolution: extends chains, select rules, explicit values, costs, sources."""

from __future__ import annotations

import textwrap
from pathlib import Path

import pytest

from knobregistry.profiles import (
    CostLine,
    Intent,
    ProfileError,
    ResolvedProfile,
    resolve_profile,
)
from knobregistry.registry import ProfileKind, Registry, SetAction, load_registry
from scanner import ScanResult, scan
from tests.conftest import REPO, write_tree
from tests.seed_recipe import RECIPE_CONFIG, RECIPE_ENV, SEEDED

KNOBS = """
version: 1
scan:
  paths: [src]
knobs:
  DEMO_NORM_TRITON:
    default: "1"
    default_on: true
    role: kernel
    triage: reproducible
    cost: Eager norm.
  DEMO_ATTN_TRITON:
    default: "1"
    default_on: true
    role: kernel
    triage: breaks-bitwise
    cost: Eager attention.
  DEMO_CACHE:
    default_on: true
    off_value: disabled
    role: kernel
    triage: untriaged
  DEMO_DEBUG:
    default: "0"
    default_on: false
    role: debug
    triage: untriaged
  DEMO_BLOCK:
    default: "64"
    default_on: null
    role: value
    triage: exempt
    reason: a size, not a switch
external:
  NCCL_ALGO:
    description: Collective algorithm.
    cost: Slower collectives.
  OMP_NUM_THREADS:
    description: Threads.
    default: "8"
    cost: Fewer threads.
config:
  deterministic_mode:
    backend: megatron
    description: Deterministic kernels.
    default: false
    cost: Slower kernels.
  seed:
    backend: megatron
    description: Seed.
    default: 1234
    argument: --seed
  debug.seed:
    backend: torchtitan
    description: Seed.
"""


def registry(tmp_path: Path, profiles: str, files: dict[str, str] | None = None) -> Registry:
    text = KNOBS + "profiles:\n" + textwrap.indent(textwrap.dedent(profiles).strip("\n"), "  ")
    write_tree(tmp_path, {"registry.yaml": text + "\n", **(files or {})})
    return load_registry(tmp_path / "registry.yaml")


def test_explicit_values_sorted_with_sources(tmp_path: Path) -> None:
    reg = registry(
        tmp_path,
        """
        plain:
          description: Explicit values only.
          env:
            NCCL_ALGO: Ring
            DEMO_ATTN_TRITON: "0"
          config:
            seed: 7
            deterministic_mode: true
        """,
    )
    resolved = resolve_profile(reg, "plain")
    assert resolved.name == "plain"
    assert resolved.kind is ProfileKind.CUSTOM
    assert resolved.chain == ("plain",)
    assert list(resolved.env.items()) == [("DEMO_ATTN_TRITON", "0"), ("NCCL_ALGO", "Ring")]
    assert list(resolved.config.items()) == [("deterministic_mode", True), ("seed", 7)]
    assert resolved.unset == ()
    assert str(resolved.sources["NCCL_ALGO"]) == "profiles.plain.env.NCCL_ALGO"
    assert str(resolved.config_sources["seed"]) == "profiles.plain.config.seed"
    assert resolved.costs == (
        CostLine("DEMO_ATTN_TRITON=0", "Eager attention."),
        CostLine("NCCL_ALGO=Ring", "Slower collectives."),
        CostLine("deterministic_mode=true", "Slower kernels."),
    )


def test_extends_chain_child_wins(tmp_path: Path) -> None:
    reg = registry(
        tmp_path,
        """
        base:
          description: Base.
          env: {NCCL_ALGO: Tree, OMP_NUM_THREADS: "4"}
          config: {seed: 1}
        middle:
          description: Middle.
          extends: base
          env: {NCCL_ALGO: Ring}
        top:
          description: Top.
          kind: bitwise
          extends: middle
          config: {seed: 2, deterministic_mode: true}
        """,
    )
    top = resolve_profile(reg, "top")
    assert top.chain == ("base", "middle", "top")
    assert top.kind is ProfileKind.BITWISE
    assert dict(top.env) == {"NCCL_ALGO": "Ring", "OMP_NUM_THREADS": "4"}
    assert dict(top.config) == {"deterministic_mode": True, "seed": 2}
    assert top.sources["NCCL_ALGO"].profile == "middle"
    assert top.sources["OMP_NUM_THREADS"].profile == "base"
    assert top.config_sources["seed"].profile == "top"


def test_select_rule_turns_off_what_is_not_reproducible(tmp_path: Path) -> None:
    reg = registry(
        tmp_path,
        """
        bitwise:
          description: Bitwise.
          kind: bitwise
          select:
            - default_on: true
              triage_not: reproducible
              set: off
        """,
    )
    resolved = resolve_profile(reg, "bitwise")
    # off_value from the registry entry wins; "0" is the fallback without a scan.
    assert dict(resolved.env) == {"DEMO_ATTN_TRITON": "0", "DEMO_CACHE": "disabled"}
    source = resolved.sources["DEMO_CACHE"]
    assert (str(source), source.action) == ("profiles.bitwise.select[0]", SetAction.OFF)
    assert resolved.intent("DEMO_CACHE") is Intent.OFF


def test_rules_in_order_then_explicit_env_wins(tmp_path: Path) -> None:
    reg = registry(
        tmp_path,
        """
        mixed:
          description: Mixed.
          select:
            - match: ["DEMO_*"]
              set: off
            - match: ["DEMO_NORM_*"]
              set: on
            - triage: [exempt]
              set: default
          env:
            DEMO_ATTN_TRITON: "1"
        """,
    )
    resolved = resolve_profile(reg, "mixed")
    assert dict(resolved.env) == {
        "DEMO_ATTN_TRITON": "1",  # explicit env over the rules
        "DEMO_CACHE": "disabled",
        "DEMO_DEBUG": "0",
        "DEMO_NORM_TRITON": "1",  # the later rule wins
    }
    # `set: default` unsets any knob it selects, value knobs included; on/off skip those.
    assert resolved.unset == ("DEMO_BLOCK",)
    assert resolved.intent("DEMO_ATTN_TRITON") is Intent.ON  # by the convention
    assert resolved.costs == ()  # nothing moved off its default costs anything recorded


def test_child_rule_overrides_parent_value(tmp_path: Path) -> None:
    reg = registry(
        tmp_path,
        """
        parent:
          description: Parent.
          env: {DEMO_NORM_TRITON: "0"}
        child:
          description: Child.
          extends: parent
          select: [{match: [DEMO_NORM_TRITON], set: on}]
        """,
    )
    assert dict(resolve_profile(reg, "child").env) == {"DEMO_NORM_TRITON": "1"}
    assert dict(resolve_profile(reg, "parent").env) == {"DEMO_NORM_TRITON": "0"}


SOURCE = {
    "src/gates.py": """
        import os

        def new_fusion():
            return os.environ.get("DEMO_NEW_TRITON", "on") != "off"

        def presence():
            return "DEMO_TRACE" in os.environ

        def registered():
            return os.environ.get("DEMO_ATTN_TRITON", "1").lower() not in ("0", "false")

        BLOCK = int(os.environ.get("DEMO_SIZE", "64"))


        def forward(x):
            if new_fusion():
                from kernels import fused_add

                return fused_add(x)
            return x + 1
        """,
    # The Triton kernel the new fusion's branch runs: what makes it a kernel choice.
    "src/kernels.py": """
        import triton


        @triton.jit
        def _add_kernel(x_ptr):
            pass


        def fused_add(x):
            _add_kernel[(1,)](x)
            return x
        """,
}


def scanned(reg: Registry) -> ScanResult:
    return scan(reg.scan_paths(), root=reg.root)


def test_with_a_scan_rules_cover_unregistered_knobs(tmp_path: Path) -> None:
    reg = registry(
        tmp_path,
        """
        bitwise:
          description: Bitwise.
          kind: bitwise
          select: [{default_on: true, triage_not: reproducible, set: off}]
        quiet:
          description: Every debugging aid and kernel choice off by default, pinned off.
          select: [{default_on: false, role: [debug, kernel], set: off}]
        """,
        SOURCE,
    )
    without = resolve_profile(reg, "bitwise")
    assert "DEMO_NEW_TRITON" not in without.env
    resolved = resolve_profile(reg, "bitwise", scanned(reg))
    assert dict(resolved.env) == {
        "DEMO_ATTN_TRITON": "0",
        "DEMO_CACHE": "disabled",
        "DEMO_NEW_TRITON": "off",  # the scanned gate's off value, not the fallback "0"
    }
    # A presence gate turns off only when unset; the value knob DEMO_SIZE is never selected.
    quiet = resolve_profile(reg, "quiet", scanned(reg))
    assert dict(quiet.env) == {"DEMO_DEBUG": "0"}
    assert quiet.unset == ("DEMO_TRACE",)


def test_unknown_profile(tmp_path: Path) -> None:
    reg = registry(tmp_path, "one:\n  description: One.\n")
    with pytest.raises(ProfileError) as info:
        resolve_profile(reg, "two")
    assert str(info.value) == "no profile is named 'two'; the profiles are: one."


def repository_profile(name: str) -> ResolvedProfile:
    return resolve_profile(load_registry(REPO / "registry.yaml"), name)


def test_repository_bitwise_is_the_seed_recipe() -> None:
    bitwise = repository_profile("bitwise")
    assert bitwise.kind is ProfileKind.BITWISE
    assert bitwise.chain == ("reproducible", "bitwise")
    assert dict(bitwise.env) == RECIPE_ENV
    assert list(bitwise.env) == sorted(RECIPE_ENV)
    assert dict(bitwise.config) == {**RECIPE_CONFIG, **SEEDED}
    assert bitwise.unset == ()
    subjects = [c.subject for c in bitwise.costs]
    assert "PRIMUS_HC_TRITON=0" in subjects
    assert "NCCL_ALGO=Ring" in subjects
    assert "use_v4_attention_backend=eager" in subjects
    assert "PRIMUS_TURBO_AUTO_TUNE=0" not in subjects  # "0" is already its default


def test_repository_reproducible_and_fast() -> None:
    reproducible = repository_profile("reproducible")
    assert (dict(reproducible.env), dict(reproducible.config)) == ({}, SEEDED)
    fast = repository_profile("fast")
    fusions = {n: "1" for n, v in RECIPE_ENV.items() if n.startswith("PRIMUS_") and v == "0"}
    fusions.pop("PRIMUS_TURBO_AUTO_TUNE")
    # PRIMUS_TURBO_MOE_DISPATCH_COMBINE_BACKEND names a backend (role value): not a kernel
    # switch the fast profile turns on.
    assert dict(fast.env) == {**fusions, "PRIMUS_DETERMINISTIC": "0"}
    assert dict(fast.config) == {"deterministic_mode": False}
    assert fast.costs == ()  # every value is its default


def test_an_undecided_knob_with_a_stated_off_value_is_turned_off(tmp_path: Path) -> None:
    """A knob `knobs init` registers undecided because the run computes its state unset
    (unsloth 2026.10.9 models/_decode_graphs.py:84-90), with the off value every site reads
    as off: `set: off` writes that value, and the profile names it. Without the off value,
    or as a disable knob (whose feature the on value turns off), it is left alone."""
    text = """
    version: 1
    knobs:
      DEMO_GRAPHS:
        default_on: null
        undecided: "what it gives unset is computed at run time (pkg/graphs.py:7)"
        off_value: "0"
        role: kernel
        triage: untriaged
      DEMO_SPLIT:
        default_on: null
        undecided: "no single value turns every site off (pkg/a.py:1, pkg/b.py:2)"
        role: kernel
        triage: untriaged
      DEMO_NO_GRAPHS:
        default_on: null
        undecided: "what it gives unset is computed at run time (pkg/graphs.py:9)"
        polarity: disable
        off_value: "0"
        role: kernel
        triage: untriaged
    profiles:
      bitwise:
        description: Bitwise.
        kind: bitwise
        select:
          - role: kernel
            default_on: true
            set: off
    """
    write_tree(tmp_path, {"registry.yaml": text})
    resolved = resolve_profile(load_registry(tmp_path / "registry.yaml"), "bitwise")
    assert dict(resolved.env) == {"DEMO_GRAPHS": "0"}
    assert resolved.computed == ("DEMO_GRAPHS",)
    assert [(item.name, item.why.value) for item in resolved.left] == [
        ("DEMO_NO_GRAPHS", "undecided"),
        ("DEMO_SPLIT", "undecided"),
    ]
    assert resolved.role_reasons["DEMO_GRAPHS"] == (
        "the registry says so; what it gives unset is computed at run time (pkg/graphs.py:7); "
        "'0' turns it off whatever it is"
    )
