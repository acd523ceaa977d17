"""Triage plans: the candidates, the baseline environment, and ddmin's search."""

from __future__ import annotations

from itertools import combinations

import pytest

from knobregistry.registry import Registry, Sweep, loads_registry
from knobregistry.triage import PlanError, Setting, TriageKnob, ddmin, make_plan
from knobregistry.triage.plan import alone, pairs

REGISTRY = """
version: 1
knobs:
  A_TRITON:
    default: "1"
    default_on: true
    role: kernel
    triage: untriaged
  B_CACHE:
    default_on: true
    role: kernel
    off_value: disabled
    on_value: enabled
    triage: reproducible
  C_FUSED:
    default: "1"
    default_on: true
    role: kernel
    triage: breaks-bitwise
  D_OPT_IN:
    default: "0"
    default_on: false
    role: kernel
    triage: untriaged
  E_BLOCK:
    default: "64"
    default_on: null
    role: value
    triage: untriaged
external:
  NCCL_ALGO:
    description: Collective algorithm.
profiles:
  bitwise:
    description: Bit for bit.
    kind: bitwise
    env:
      NCCL_ALGO: Ring
      C_FUSED: "false"
    select:
      - default_on: true
        triage_not: reproducible
        set: "off"
  debug:
    description: Unsets the opt-in.
    select:
      - match: [D_*]
        set: default
"""


@pytest.fixture()
def registry() -> Registry:
    return loads_registry(REGISTRY)


def test_a_profile_triages_the_knobs_it_turns_off_from_the_profile_as_exported(
    registry: Registry,
) -> None:
    plan = make_plan(registry, "bitwise", ())
    assert plan.candidates == (
        TriageKnob("A_TRITON", "1", "0"),
        TriageKnob("C_FUSED", "1", "0"),
    )
    # The profile's own off value ("false") is kept; external values come along.
    assert plan.env == {"A_TRITON": "0", "C_FUSED": "false", "NCCL_ALGO": "Ring"}
    assert plan.unset == ()
    assert plan.profile == "bitwise"


def test_named_knobs_are_turned_off_over_the_profile(registry: Registry) -> None:
    plan = make_plan(registry, "bitwise", ("B_CACHE",))
    assert plan.names == ("B_CACHE",)
    assert plan.env == {
        "A_TRITON": "0",
        "B_CACHE": "disabled",
        "C_FUSED": "false",
        "NCCL_ALGO": "Ring",
    }


def test_without_a_profile_every_registered_switch_is_a_candidate(registry: Registry) -> None:
    plan = make_plan(registry, None, ())
    assert plan.names == ("A_TRITON", "B_CACHE", "C_FUSED", "D_OPT_IN")
    assert plan.env == {"A_TRITON": "0", "B_CACHE": "disabled", "C_FUSED": "0", "D_OPT_IN": "0"}


def test_an_unset_default_off_knob_is_turned_off_by_the_profile(registry: Registry) -> None:
    plan = make_plan(registry, "debug", ())
    assert plan.names == ("D_OPT_IN",)
    assert plan.unset == ("D_OPT_IN",)
    assert plan.env == {}


def test_environments_of_settings(registry: Registry) -> None:
    plan = make_plan(registry, "bitwise", ())
    base = {"PATH": "/bin", "A_TRITON": "1", "D_OPT_IN": "1"}
    assert plan.environment(Setting(Sweep.BASELINE), base) == {
        "PATH": "/bin",
        "A_TRITON": "0",
        "C_FUSED": "false",
        "D_OPT_IN": "1",
        "NCCL_ALGO": "Ring",
    }
    assert plan.environment(Setting(Sweep.ALONE, ("C_FUSED",)), base)["C_FUSED"] == "1"
    assert plan.overrides(Setting(Sweep.ALONE, ("A_TRITON",))) == {
        "A_TRITON": "1",
        "C_FUSED": "false",
        "NCCL_ALGO": "Ring",
    }
    debug = make_plan(registry, "debug", ())
    assert "D_OPT_IN" not in debug.environment(Setting(Sweep.BASELINE), base)


def test_settings_alone_and_in_pairs(registry: Registry) -> None:
    plan = make_plan(registry, None, ())
    assert [s.label for s in alone(plan)] == ["A_TRITON", "B_CACHE", "C_FUSED", "D_OPT_IN"]
    assert [s.label for s in pairs(("A", "B", "C"))] == ["A + B", "A + C", "B + C"]
    assert pairs(("A",)) == []
    assert Setting(Sweep.BASELINE).label == "baseline"


@pytest.mark.parametrize(
    ("profile", "knobs", "message"),
    [
        (
            None,
            ("NOPE", "A_TRITON", "ALSO_NOPE"),
            "NOPE, ALSO_NOPE are not registered in registry.yaml; fix the name, or register "
            "the knob first (`knobs check` prints its entry).",
        ),
        (
            None,
            ("E_BLOCK",),
            "E_BLOCK: a value knob (default_on: null) has no on and off to compare; triage "
            "switches, or run the command with each value yourself.",
        ),
        (
            "nope",
            (),
            "no profile is named 'nope'; the profiles are: bitwise, debug.",
        ),
    ],
)
def test_plans_that_cannot_start(
    registry: Registry, profile: str | None, knobs: tuple[str, ...], message: str
) -> None:
    with pytest.raises(PlanError) as caught:
        make_plan(registry, profile, knobs)
    assert str(caught.value) == message


def test_a_profile_that_turns_nothing_off() -> None:
    registry = loads_registry(
        "version: 1\nknobs:\n  X:\n    default_on: true\n    triage: reproducible\n"
        "profiles:\n  fast:\n    description: Everything on.\n    select:\n"
        '      - set: "on"\n'
    )
    with pytest.raises(PlanError, match="profile 'fast' turns no knob off; name knobs"):
        make_plan(registry, "fast", ())


class Counter:
    """A test function for ddmin that fails when every knob of ``culprit`` is on."""

    def __init__(self, culprit: set[str]) -> None:
        self.culprit = culprit
        self.tested: list[tuple[str, ...]] = []

    def __call__(self, subset: tuple[str, ...]) -> bool:
        self.tested.append(subset)
        return self.culprit <= set(subset)


KNOBS = tuple(f"K{i:02d}" for i in range(1, 13))


@pytest.mark.parametrize(
    ("culprit", "tests"),
    [
        ({"K03", "K09"}, 21),
        ({"K01", "K02"}, 5),
        ({"K07"}, 5),
        ({"K02", "K05", "K11"}, 39),
    ],
)
def test_ddmin_finds_the_culprit_in_fewer_tests_than_every_pair(
    culprit: set[str], tests: int
) -> None:
    fails = Counter(culprit)
    assert ddmin(KNOBS, fails) == tuple(sorted(culprit))
    assert len(fails.tested) == tests
    assert len(set(fails.tested)) == tests  # no subset twice
    assert KNOBS not in fails.tested  # the caller tested everything on already
    assert tests < len(list(combinations(KNOBS, 2))) == 66


def test_ddmin_of_a_single_item_and_a_pair() -> None:
    assert ddmin(("A",), Counter({"A"})) == ("A",)
    fails = Counter({"A", "B"})
    assert ddmin(("A", "B"), fails) == ("A", "B")
    assert fails.tested == [("A",), ("B",)]
