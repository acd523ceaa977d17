"""Rules the schema cannot express: references between entries, and cross-field rules."""

from __future__ import annotations

from pathlib import Path

import pytest

from knobregistry.registry import RegistryError, load_registry

HEAD = "version: 1\n"

# (id, registry text after `version: 1`, the whole error output)
INVALID = [
    (
        "exempt-without-reason",
        'knobs:\n  DEMO_CACHE:\n    default: "1"\n    triage: exempt\n    expires: 2026-12-31\n',
        "registry.yaml:3:3: knobs.DEMO_CACHE: missing required key 'reason'; an exempt knob "
        "must say why it needs no triage.",
    ),
    (
        "no-default",
        "knobs:\n  DEMO_CACHE:\n    triage: untriaged\n",
        "registry.yaml:3:3: knobs.DEMO_CACHE: give the knob's `default` (the value the code "
        "falls back to when the variable is unset) or `default_on`, so that `knobs check` "
        "notices when the code changes.",
    ),
    (
        "breaks-without-breaks-bitwise",
        "knobs:\n  DEMO:\n    default_on: true\n    triage: reproducible\n    breaks: backward\n",
        "registry.yaml:6:5: knobs.DEMO.breaks: only a knob triaged 'breaks-bitwise' names the "
        "pass that breaks; remove `breaks` or change the triage.",
    ),
    (
        "knob-and-external",
        "knobs:\n  NCCL_ALGO:\n    default: Ring\n    triage: untriaged\n"
        "external:\n  NCCL_ALGO:\n    description: collective algorithm\n",
        "registry.yaml:7:3: external.NCCL_ALGO: 'NCCL_ALGO' is also registered under knobs; "
        "keep it in one place: under knobs if the scanned code reads it, under external if "
        "only a library does.",
    ),
    (
        "absolute-scan-path",
        "scan:\n  paths: [src, C:\\work\\src]\n",
        "registry.yaml:3:16: scan.paths[1]: 'C:\\work\\src' is an absolute path; write it "
        "relative to the registry's folder, so the registry works in every checkout.",
    ),
    (
        "unknown-extends",
        "profiles:\n  fast:\n    description: d\n  bitwise:\n    description: d\n"
        "    extends: reproducible\n",
        "registry.yaml:7:5: profiles.bitwise.extends: no profile is named 'reproducible'; the "
        "profiles are 'fast', 'bitwise'.",
    ),
    (
        "extends-cycle",
        "profiles:\n  a:\n    description: d\n    extends: c\n  b:\n    description: d\n"
        "    extends: a\n  c:\n    description: d\n    extends: b\n"
        "  d:\n    description: d\n    extends: a\n",
        "registry.yaml:5:5: profiles.a.extends: profiles extend each other in a cycle "
        "(a -> c -> b -> a); remove one of these `extends`.",
    ),
    (
        "extends-itself",
        "profiles:\n  a:\n    description: d\n    extends: a\n",
        "registry.yaml:5:5: profiles.a.extends: profiles extend each other in a cycle "
        "(a -> a); remove one of these `extends`.",
    ),
    (
        "undeclared-config-key",
        "config:\n  seed:\n    backend: megatron\n    description: d\n"
        "profiles:\n  a:\n    description: d\n    config:\n      seed: 1\n      sead: 2\n",
        "registry.yaml:11:7: profiles.a.config.sead: the config key 'sead' is not declared; "
        "add it under the top-level `config` with its backend and description.",
    ),
    (
        "select-rule",
        "profiles:\n  a:\n    description: d\n    select:\n"
        "      - {triage_not: [reproducible, reproducible], set: maybe}\n"
        "      - {triage: flaky, set: off}\n      - {default_on: true}\n",
        "registry.yaml:6:10: profiles.a.select[0].triage_not: lists the same value more than "
        "once; remove the repeats\n"
        "registry.yaml:6:52: profiles.a.select[0].set: expected one of 'off', 'on', "
        "'deterministic', 'default', got 'maybe'\n"
        "registry.yaml:7:10: profiles.a.select[1].triage: expected one of 'reproducible', "
        "'breaks-bitwise', 'untriaged', 'exempt', got 'flaky'\n"
        "registry.yaml:8:9: profiles.a.select[2]: missing required key 'set'; say what to do "
        "with the selected knobs: off, on, deterministic or default.",
    ),
    (
        "env-values-are-strings",
        "profiles:\n  a:\n    description: d\n    env:\n      DEMO_A: off\n      DEMO_B: 1.5\n"
        "      DEMO_C: Ring\n      bad-name: x\n",
        "registry.yaml:6:7: profiles.a.env.DEMO_A: expected a string, got 'off'; quote it to "
        'keep it a string: "off"\n'
        "registry.yaml:7:7: profiles.a.env.DEMO_B: expected a string, got the number 1.5; "
        'quote it to keep it a string: "1.5"\n'
        "registry.yaml:9:7: profiles.a.env.bad-name: 'bad-name' is not valid here: a variable "
        "name is letters, digits and underscores, and does not start with a digit",
    ),
]


@pytest.mark.parametrize(
    ("text", "expected"), [(t, e) for _, t, e in INVALID], ids=[i for i, _, _ in INVALID]
)
def test_rule_golden(tmp_path: Path, text: str, expected: str) -> None:
    file = tmp_path / "registry.yaml"
    file.write_text(HEAD + text, encoding="utf-8")
    with pytest.raises(RegistryError) as caught:
        load_registry(file, display="registry.yaml")
    assert str(caught.value) == expected


def test_checks_tolerate_wrong_shapes(tmp_path: Path) -> None:
    """Semantic checks skip what the schema already reports, rather than crash."""
    file = tmp_path / "registry.yaml"
    file.write_text(
        "version: 1\nscan: [x]\nknobs: {A: 3}\nexternal: 4\nprofiles: {p: [1], q: {extends: 5}}\n",
        encoding="utf-8",
    )
    with pytest.raises(RegistryError) as caught:
        load_registry(file, display="registry.yaml")
    assert [p.key_path for p in caught.value.problems] == [
        ("scan",),
        ("knobs", "A"),
        ("external",),
        ("profiles", "p"),
        ("profiles", "q"),
        ("profiles", "q", "extends"),
    ]
