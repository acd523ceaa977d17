"""YAML configs: every interpolation form, pinned to line and column, with its key path."""

from __future__ import annotations

from pathlib import Path

import pytest

from scanner import GateKind, ReadKind, Settings, scan
from tests.conftest import write_tree
from tests.test_scanner_shell import marked

Expected = tuple[str, str | None, ReadKind, GateKind, bool | None, str | None, str]

CASES: list[tuple[str, str, list[Expected]]] = [
    (
        "required",
        "trainer:\n  data: ▸${DATA_ROOT}\n",
        [("DATA_ROOT", None, ReadKind.REQUIRED, GateKind.VALUE, None, None, "trainer.data")],
    ),
    (
        "a-degree-defaulting-to-1",
        "trainer:\n  tp: ▸${TP:1}\n",
        [("TP", "1", ReadKind.INTERPOLATION, GateKind.VALUE, None, None, "trainer.tp")],
    ),
    (
        "a-count-by-its-key",
        "trainer:\n  log_freq: ▸${EVERY:1}\n",
        [("EVERY", "1", ReadKind.INTERPOLATION, GateKind.VALUE, None, None, "trainer.log_freq")],
    ),
    (
        "zero-one-to-a-key-whose-literal-is-a-boolean",
        "defaults:\n  fused_norm: true\nrun:\n  fused_norm: ▸${X_NORM:1}\n",
        [("X_NORM", "1", ReadKind.INTERPOLATION, GateKind.BOOLEAN, True, "0", "run.fused_norm")],
    ),
    (
        "zero-one-to-a-key-whose-literal-is-a-number",
        "defaults:\n  stages: 4\nrun:\n  stages: ▸${X_STAGES:1}\n",
        [("X_STAGES", "1", ReadKind.INTERPOLATION, GateKind.VALUE, None, None, "run.stages")],
    ),
    (
        "zero-one-to-a-key-of-several-types",
        "a:\n  knob: true\nb:\n  knob: 3\nc:\n  knob: ▸${X_KNOB:0}\n",
        [("X_KNOB", "0", ReadKind.INTERPOLATION, GateKind.UNKNOWN, None, None, "c.knob")],
    ),
    (
        "a-shell-variable-that-programs-inherit",
        "run:\n  workdir: ▸${PWD}\n",
        [("PWD", None, ReadKind.REQUIRED, GateKind.LAUNCH, None, None, "run.workdir")],
    ),
    (
        "shell-style-default",
        "trainer:\n  tp: ▸${TP:-8}\n",
        [("TP", "8", ReadKind.INTERPOLATION, GateKind.VALUE, None, None, "trainer.tp")],
    ),
    (
        "switch-in-quotes",
        'modules:\n  pre_trainer:\n    overrides:\n      fused: "▸${X_FUSED:false}"\n',
        [
            (
                "X_FUSED",
                "false",
                ReadKind.INTERPOLATION,
                GateKind.BOOLEAN,
                False,
                "false",
                "modules.pre_trainer.overrides.fused",
            )
        ],
    ),
    (
        "two-in-one-value",
        "run:\n  name: ▸${EXP:llama}-▸${STAGE:pre}\n",
        [
            ("EXP", "llama", ReadKind.INTERPOLATION, GateKind.VALUE, None, None, "run.name"),
            ("STAGE", "pre", ReadKind.INTERPOLATION, GateKind.VALUE, None, None, "run.name"),
        ],
    ),
    (
        "in-a-list",
        "paths:\n  - a\n  - ▸${B_PATH:/tmp}\n",
        [("B_PATH", "/tmp", ReadKind.INTERPOLATION, GateKind.VALUE, None, None, "paths[1]")],
    ),
    (
        "flow-mapping",
        'x: {y: "▸${FLOW:on}"}\n',
        [("FLOW", "on", ReadKind.INTERPOLATION, GateKind.BOOLEAN, True, "off", "x.y")],
    ),
    (
        "second-document",
        "a: 1\n---\nb: ▸${DOC2:0}\n",
        [("DOC2", "0", ReadKind.INTERPOLATION, GateKind.UNKNOWN, None, None, "b")],
    ),
]


@pytest.mark.parametrize(("text", "expected"), [c[1:] for c in CASES], ids=[c[0] for c in CASES])
def test_yaml_read(tmp_path: Path, text: str, expected: list[Expected]) -> None:
    source, positions = marked(text)
    write_tree(tmp_path, {"conf/exp.yaml": source})
    result = scan([tmp_path], root=tmp_path, jobs=1)
    sites = sorted((s for k in result.knobs for s in k.sites), key=lambda s: (s.line, s.column))
    got = [
        (
            (s.line, s.column),
            (s.name, s.default, s.kind, s.gate.kind, s.default_on, s.gate.off_value, s.function),
        )
        for s in sites
    ]
    assert got == list(zip(positions, expected, strict=True))
    assert {(s.language, s.path) for s in sites} == {("yaml", "conf/exp.yaml")}


NOT_READS = [
    ("github-expression", "steps:\n  - run: echo ${{ secrets.TOKEN }}\n"),
    ("comment", "# ${X:1}\na: 1\n"),
    ("key", "${X}: 1\n"),
    ("dollar-without-brace", "a: $X\n"),
    ("a-template-that-is-not-yaml", "{% if x %}\na: {{ x }}\n{% endif %}\n"),
    (
        "what-bash-sets-for-a-script-in-a-value",
        "entry: |\n  /bin/bash -c 'mkdir /tmp/lock_${PPID}; echo ${RANDOM} ${LINENO}'\n",
    ),
]


@pytest.mark.parametrize("text", [c[1] for c in NOT_READS], ids=[c[0] for c in NOT_READS])
def test_not_a_read(tmp_path: Path, text: str) -> None:
    write_tree(tmp_path, {"c.yml": text})
    result = scan([tmp_path], root=tmp_path, jobs=1)
    assert (result.knobs, result.errors) == ((), ())


def test_a_malformed_config_is_an_error_for_that_file_only(tmp_path: Path) -> None:
    write_tree(tmp_path, {"bad.yaml": "a: ${X:1}\n b: [\n", "good.yaml": "a: ${GOOD:1}\n"})
    result = scan([tmp_path], root=tmp_path, jobs=1)
    assert [k.name for k in result.knobs] == ["GOOD"]
    assert [(e.path, e.message) for e in result.errors] == [
        (
            "bad.yaml",
            "Cannot parse the YAML on line 2, column 3: mapping values are not allowed in this "
            "context.",
        )
    ]


def test_a_zero_one_default_with_no_type_is_unknown_with_its_reason(tmp_path: Path) -> None:
    write_tree(tmp_path, {"exp.yaml": "run:\n  shiny: ${X_SHINY:1}\n"})
    (site,) = scan([tmp_path], root=tmp_path, jobs=1).knobs[0].sites
    assert (site.gate.kind, site.reason) == (
        GateKind.UNKNOWN,
        "its default is '1', and the config key 'shiny' has no known type: a 0 or 1 alone "
        "does not make a switch",
    )


def test_the_type_comes_from_another_file_of_the_tree(tmp_path: Path) -> None:
    write_tree(
        tmp_path,
        {
            "configs/modules/trainer_base.yaml": "shiny: false\nwidth: 8\n",
            "examples/exp.yaml": "overrides:\n  shiny: ${X_SHINY:1}\n  width: ${X_WIDTH:1}\n",
        },
    )
    result = scan([tmp_path], root=tmp_path, jobs=1)
    verdicts = {k.name: (k.kind, k.default_on, k.off_value) for k in result.knobs}
    assert verdicts == {
        "X_SHINY": (GateKind.BOOLEAN, True, "0"),
        "X_WIDTH": (GateKind.VALUE, None, None),
    }
    assert result.errors == ()


def test_the_trainer_config_types_win_over_the_tree(tmp_path: Path) -> None:
    write_tree(
        tmp_path,
        {"a.yaml": "shiny: 3\n", "exp.yaml": "o:\n  shiny: ${X_SHINY:0}\n  other: ${X_O:0}\n"},
    )
    result = scan([tmp_path], Settings(config_types=(("shiny", "bool"),)), root=tmp_path, jobs=1)
    verdicts = {k.name: (k.kind, k.default_on) for k in result.knobs}
    assert verdicts == {"X_SHINY": (GateKind.BOOLEAN, False), "X_O": (GateKind.UNKNOWN, None)}
