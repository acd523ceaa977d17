"""Loading malformed registries: every problem at once, each with its line, column and key."""

from __future__ import annotations

from pathlib import Path

import pytest

from knobregistry.registry import (
    RegistryError,
    RegistryProblem,
    load_registry,
    loads_registry,
    registry_problems,
)
from knobregistry.registry.document import MAX_NODES
from scanner import Role

DATA = Path(__file__).parent / "data" / "registries"

VALID_KNOB = """\
version: 1
knobs:
  DEMO_FUSED:
    default: "1"
    triage: reproducible
"""

# (id, registry text, the whole error output). One case per kind of mistake.
INVALID = [
    (
        "bad-yaml",
        'version: 1\nknobs:\n  DEMO_FUSED: {default: "1"\n',
        "registry.yaml:4:1: invalid YAML: expected ',' or '}', but got '<stream end>' "
        "(while parsing a flow mapping that starts at line 3, column 15).",
    ),
    (
        "bad-yaml-tab",
        "version: 1\nknobs:\n\tDEMO_FUSED: {}\n",
        "registry.yaml:3:1: invalid YAML: found character '\\t' that cannot start any token; "
        "indent with spaces, not tabs.",
    ),
    (
        "unknown-key",
        VALID_KNOB + "    trige: reproducible\n",
        "registry.yaml:6:5: knobs.DEMO_FUSED.trige: unknown key; did you mean 'triage'?",
    ),
    (
        "unknown-top-level-key",
        VALID_KNOB + "waivers: []\n",
        "registry.yaml:6:1: waivers: unknown key; the keys allowed here are 'version', "
        "'scan', 'knobs', 'external', 'config', 'profiles'",
    ),
    (
        "misspelt-top-level-key",
        VALID_KNOB + "knob_list: []\n",
        "registry.yaml:6:1: knob_list: unknown key; did you mean 'knobs'?",
    ),
    (
        "wrong-type",
        'version: 1\nknobs:\n  DEMO_FUSED:\n    default: 1\n    triage: "reproducible"\n',
        "registry.yaml:4:5: knobs.DEMO_FUSED.default: expected a string, got the integer 1; "
        'quote it to keep it a string: "1"',
    ),
    (
        "wrong-type-mapping",
        "version: 1\nknobs: [DEMO_FUSED]\n",
        "registry.yaml:2:1: knobs: expected a mapping, got a list",
    ),
    (
        "wrong-enum",
        'version: 1\nknobs:\n  DEMO_FUSED:\n    default: "1"\n    triage: yes\n',
        "registry.yaml:5:5: knobs.DEMO_FUSED.triage: expected one of 'reproducible', "
        "'breaks-bitwise', 'untriaged', 'exempt', got 'yes'",
    ),
    (
        "empty-value",
        'version: 1\nknobs:\n  DEMO_FUSED:\n    default: "1"\n    triage:\n',
        "registry.yaml:5:5: knobs.DEMO_FUSED.triage: expected one of 'reproducible', "
        "'breaks-bitwise', 'untriaged', 'exempt', got nothing",
    ),
    (
        "duplicate-key",
        VALID_KNOB + '  DEMO_FUSED:\n    default: "0"\n    triage: untriaged\n',
        "registry.yaml:6:3: knobs.DEMO_FUSED: duplicate key: 'DEMO_FUSED' is already defined "
        "on line 3, and YAML would silently keep only the last one. Merge the two entries "
        "into one.",
    ),
    (
        "duplicate-nested-key",
        VALID_KNOB + "    triage: untriaged\n",
        "registry.yaml:6:5: knobs.DEMO_FUSED.triage: duplicate key: 'triage' is already "
        "defined on line 5, and YAML would silently keep only the last one. Merge the two "
        "entries into one.",
    ),
    (
        "missing-field",
        'version: 1\nknobs:\n  DEMO_FUSED:\n    default: "1"\n',
        "registry.yaml:3:3: knobs.DEMO_FUSED: missing required key 'triage'; say whether the "
        "knob is 'reproducible', 'breaks-bitwise', 'untriaged' or 'exempt' (use 'untriaged' "
        "until it has been measured).",
    ),
    (
        "missing-version",
        "# a comment first\nknobs: {}\n",
        "registry.yaml:2:1: missing required key 'version'; start the file with `version: 1`.",
    ),
    (
        "wrong-version",
        "version: 2\n",
        "registry.yaml:1:1: version: expected 1, got the integer 2",
    ),
    (
        "empty-file",
        "",
        "registry.yaml:1:1: the file is empty; a registry starts with `version: 1`.",
    ),
    (
        "only-comments",
        "# nothing here yet\n",
        "registry.yaml:1:1: the file is empty; a registry starts with `version: 1`.",
    ),
    (
        "not-a-mapping",
        "- version: 1\n",
        "registry.yaml:1:1: expected a mapping, got a list",
    ),
    (
        "python-tag",
        "version: 1\nknobs: !!python/object/apply:os.system [echo hi]\n",
        "registry.yaml:2:1: knobs: expected a mapping, got a list\n"
        "registry.yaml:2:8: knobs: the tag !!python/object/apply:os.system is not allowed; "
        "remove it.",
    ),
    (
        "tagged-key",
        VALID_KNOB + "    !custom owner: me\n",
        "registry.yaml:6:5: knobs.DEMO_FUSED.owner: the tag !custom is not allowed.",
    ),
    (
        "invalid-date",
        VALID_KNOB + "    expires: 2026-02-30\n",
        "registry.yaml:6:5: knobs.DEMO_FUSED.expires: expected a valid date written "
        "YYYY-MM-DD, got '2026-02-30'",
    ),
    (
        "date-with-time",
        VALID_KNOB + '    expires: "31.12.2026"\n',
        "registry.yaml:6:5: knobs.DEMO_FUSED.expires: expected a valid date written "
        "YYYY-MM-DD, got '31.12.2026'",
    ),
    (
        "bad-knob-name",
        'version: 1\nknobs:\n  2FAST:\n    default: "1"\n    triage: reproducible\n',
        "registry.yaml:3:3: knobs[\"2FAST\"]: '2FAST' is not valid here: a variable name is "
        "letters, digits and underscores, and does not start with a digit",
    ),
    (
        "non-string-key",
        "version: 1\nconfig:\n  on:\n    backend: megatron\n    description: x\n",
        "registry.yaml:3:3: config.on: YAML reads the key on as a boolean, not a string; "
        "quote it: 'on'.",
    ),
    (
        "misspelt-role",
        VALID_KNOB + "    role: kernal\n",
        "registry.yaml:6:5: knobs.DEMO_FUSED.role: expected one of 'kernel', 'determinism', "
        "'stack', 'feature', 'safety', 'launch', 'debug', 'value', 'fact', 'unknown', got "
        "'kernal'",
    ),
    (
        "role-of-the-wrong-kind",
        VALID_KNOB + "    role: [kernel]\n",
        "registry.yaml:6:5: knobs.DEMO_FUSED.role: expected a string or a mapping, got a list",
    ),
    (
        "proposed-role-without-its-reason",
        VALID_KNOB + "    role:\n      proposed: kernel\n",
        "registry.yaml:6:5: knobs.DEMO_FUSED.role: missing required key 'reason'; say what the "
        "proposal rests on, or write the role alone (`role: kernel`) once you have confirmed it.",
    ),
    (
        "misspelt-proposed-role",
        VALID_KNOB + "    role:\n      proposed: fused\n      reason: the name says FUSED\n",
        "registry.yaml:7:7: knobs.DEMO_FUSED.role.proposed: expected one of 'kernel', "
        "'determinism', 'stack', 'feature', 'safety', 'launch', 'debug', 'value', 'fact', "
        "'unknown', got 'fused'",
    ),
    (
        "undecided-with-its-default-written",
        VALID_KNOB + '    default_on: true\n    undecided: "it goes through str2bool()"\n',
        "registry.yaml:7:5: knobs.DEMO_FUSED.undecided: a knob whose gate is undecided has "
        "`default_on: null`; once you have read the code and written `default_on`, remove "
        "`undecided`.",
    ),
    (
        "a-rule-on-the-unknown-role",
        "version: 1\nprofiles:\n  b:\n    kind: bitwise\n    description: d\n    select:\n"
        '      - role: [kernel, unknown]\n        set: "off"\n',
        "registry.yaml:7:24: profiles.b.select[0].role[1]: expected one of 'kernel', "
        "'determinism', 'stack', 'feature', 'safety', 'launch', 'debug', 'value', 'fact', got "
        "'unknown'",
    ),
    (
        "cost-of-the-wrong-kind",
        VALID_KNOB + "    cost: 3\n",
        "registry.yaml:6:5: knobs.DEMO_FUSED.cost: expected a string or a mapping, got the "
        "integer 3",
    ),
    (
        "empty-string",
        'version: 1\nknobs:\n  DEMO_FUSED:\n    default: "1"\n    triage: exempt\n    reason: ""\n',
        "registry.yaml:6:5: knobs.DEMO_FUSED.reason: must not be empty",
    ),
]


@pytest.mark.parametrize(
    ("text", "expected"), [(t, e) for _, t, e in INVALID], ids=[i for i, _, _ in INVALID]
)
def test_invalid_registry_golden(tmp_path: Path, text: str, expected: str) -> None:
    file = tmp_path / "registry.yaml"
    file.write_text(text, encoding="utf-8")
    with pytest.raises(RegistryError) as caught:
        load_registry(file, display="registry.yaml")
    assert str(caught.value) == expected


def test_every_problem_reported_at_once() -> None:
    expected = (DATA / "many-problems.txt").read_text(encoding="utf-8")
    with pytest.raises(RegistryError) as caught:
        load_registry(DATA / "many-problems.yaml", display="many-problems.yaml")
    assert str(caught.value) + "\n" == expected
    assert len(caught.value.problems) == 11


def test_problems_are_frozen_records() -> None:
    problems = registry_problems(DATA / "many-problems.yaml", display="many-problems.yaml")
    first = problems[0]
    assert first == RegistryProblem(
        path="many-problems.yaml",
        line=3,
        column=11,
        key_path=("scan", "paths", 0),
        message="'/abs/src' is an absolute path; write it relative to the registry's folder, "
        "so the registry works in every checkout.",
    )
    with pytest.raises(AttributeError):
        first.line = 4  # type: ignore[misc]


def test_a_role_as_decided_or_as_proposed() -> None:
    registry = loads_registry(
        VALID_KNOB
        + '  DEMO_ROPE:\n    default: "1"\n    default_on: null\n    undecided: "it goes '
        'through f()"\n    role:\n      proposed: kernel\n      reason: "the name says ROPE"\n'
        "    triage: untriaged\n  DEMO_GATE:\n    default_on: false\n    off_value: null\n"
        "    role: kernel\n    triage: untriaged\n",
        "registry.yaml",
    )
    shown = {
        name: (e.role, e.role_proposed, e.role_reason, e.undecided, e.off_unset)
        for name, e in registry.knobs.items()
    }
    assert shown == {
        "DEMO_FUSED": (None, False, None, None, False),
        "DEMO_ROPE": (Role.KERNEL, True, "the name says ROPE", "it goes through f()", False),
        "DEMO_GATE": (Role.KERNEL, False, None, None, True),
    }


def test_valid_registry_has_no_problems() -> None:
    assert registry_problems(DATA / "full.yaml") == ()


def test_display_path_defaults_to_the_given_path(tmp_path: Path) -> None:
    file = tmp_path / "knobs.yaml"
    file.write_text("version: 3\n", encoding="utf-8")
    with pytest.raises(RegistryError) as caught:
        load_registry(file)
    assert str(caught.value) == f"{file.as_posix()}:1:1: version: expected 1, got the integer 3"


def test_missing_file_has_no_position(tmp_path: Path) -> None:
    with pytest.raises(RegistryError) as caught:
        load_registry(tmp_path / "absent.yaml", display="absent.yaml")
    assert str(caught.value) == "absent.yaml: cannot read the registry: No such file or directory."


def test_not_utf8_names_the_byte(tmp_path: Path) -> None:
    file = tmp_path / "registry.yaml"
    file.write_bytes(b"version: 1\nknobs:\n  DEMO_\xff: {}\n")
    with pytest.raises(RegistryError) as caught:
        load_registry(file, display="registry.yaml")
    assert str(caught.value) == "registry.yaml:3:8: the file is not UTF-8 text; save it as UTF-8."


def test_control_character_is_invalid_yaml() -> None:
    with pytest.raises(RegistryError) as caught:
        loads_registry("version: 1\nknobs: {}\x07\n")
    assert str(caught.value) == (
        "registry.yaml:2:10: invalid YAML: character '\\x07' is not allowed in a YAML file."
    )


def test_byte_order_mark_is_accepted() -> None:
    registry = loads_registry("\ufeff" + VALID_KNOB)
    assert list(registry.knobs) == ["DEMO_FUSED"]


def test_alias_bomb_is_refused() -> None:
    lines = ["version: 1", "a0: &a0 [x, x, x, x, x, x, x, x, x, x]"]
    lines += [f"a{i}: &a{i} [{', '.join([f'*a{i - 1}'] * 10)}]" for i in range(1, 7)]
    with pytest.raises(RegistryError) as caught:
        loads_registry("\n".join(lines) + "\n")
    (problem,) = caught.value.problems
    assert problem.message == (
        f"the document expands to more than {MAX_NODES} values; remove the aliases that "
        "repeat large parts of it."
    )


def test_recursive_alias_is_refused() -> None:
    with pytest.raises(RegistryError) as caught:
        loads_registry("version: 1\nknobs: &loop\n  DEMO: *loop\n")
    assert "nests deeper than" in str(caught.value)


def test_merge_keys_and_anchors_are_plain_yaml(tmp_path: Path) -> None:
    text = """\
version: 1
knobs:
  DEMO_A: &common
    default: "1"
    default_on: true
    triage: reproducible
  DEMO_B:
    <<: *common
    triage: untriaged
"""
    registry = loads_registry(text)
    assert registry.knobs["DEMO_B"].triage.value == "untriaged"
    assert registry.knobs["DEMO_B"].default == "1"
    assert registry.position("knobs", "DEMO_B", "triage") == (9, 5)


def test_merge_of_a_scalar_is_a_problem() -> None:
    with pytest.raises(RegistryError) as caught:
        loads_registry("version: 1\nknobs:\n  <<: 3\n")
    assert str(caught.value) == (
        "registry.yaml:3:7: knobs: a merge key (<<) takes a mapping or a list of mappings, "
        "such as `<<: *defaults`."
    )
