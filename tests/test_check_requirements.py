"""Requirements reach `knobs check`: a bitwise profile must give required variables their
values (KNB109), and is told when a requirement's condition is not decided (KNB110)."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.conftest import run_knobs, write_tree

VALIDATE = """\
import os

WANTED = {"DEMO_COMPILE_DISABLE": "1"}


def validate(args):
    if args.deterministic_mode:
        for env, value in WANTED.items():
            assert os.environ.get(env, None) == value, env
    if args.fp8_recipe == "mxfp8":
        assert os.getenv("DEMO_MXFP8", "0") == "1", "set DEMO_MXFP8=1"
"""

REGISTRY = """\
version: 1
scan:
  paths: [src]
  match: ["DEMO_*"]
  policy: default-on
config:
  deterministic_mode:
    backend: primus
    description: Deterministic kernels.
profiles:
  bitwise:
    kind: bitwise
    description: Bit-for-bit reproducible runs.
    env: {env}
    config:
      deterministic_mode: true
"""


@pytest.fixture
def project(tmp_path: Path) -> Path:
    return write_tree(tmp_path, {"src/validate.py": VALIDATE})


def test_a_bitwise_profile_without_the_required_value_fails(project: Path) -> None:
    (project / "registry.yaml").write_text(REGISTRY.format(env="{}"), encoding="utf-8")
    result = run_knobs("check", cwd=project)
    assert (result.returncode, result.stderr) == (1, "")
    found = [line for line in result.stdout.splitlines() if "KNB1" in line]
    assert found == [
        "registry.yaml:11:3: KNB109 error: profile 'bitwise' (kind bitwise) leaves it unset, but "
        "the "
        'code at src/validate.py:9:20 raises unless DEMO_COMPILE_DISABLE is "1" when '
        "args.deterministic_mode.",
        "registry.yaml:11:3: KNB110 note: profile 'bitwise' (kind bitwise) leaves it unset, but "
        'the code at src/validate.py:11:16 raises unless DEMO_MXFP8 is "1" when '
        'args.fp8_recipe == "mxfp8", which the profile\'s config does not decide.',
    ]


def test_the_required_value_passes(project: Path) -> None:
    env = '{DEMO_COMPILE_DISABLE: "1", DEMO_MXFP8: "1"}'
    (project / "registry.yaml").write_text(REGISTRY.format(env=env), encoding="utf-8")
    result = run_knobs("check", cwd=project)
    assert (result.returncode, result.stderr) == (0, "")
    assert "KNB1" not in result.stdout


def test_the_scan_table_says_required(project: Path) -> None:
    result = run_knobs("scan", "src", cwd=project)
    rows = [line.split()[:3] for line in result.stdout.splitlines() if line.startswith("DEMO_")]
    assert rows == [["DEMO_COMPILE_DISABLE", "-", "required"], ["DEMO_MXFP8", "'0'", "required"]]


SETUP = """\
import os

assert os.environ.get("DEMO_LAUNCHER", None) == "1", "start the run with launch.sh"
"""


@pytest.mark.parametrize(
    ("env", "found"),
    [
        ("{}", []),  # the run's set-up, which the recipe leaves to the environment
        ('{DEMO_LAUNCHER: "1"}', []),
        (
            '{DEMO_LAUNCHER: "0"}',
            [
                "registry.yaml:14:11: KNB109 error: profile 'bitwise' (kind bitwise) sets it to "
                '"0" '
                "(profiles.bitwise.env.DEMO_LAUNCHER), but the code at src/setup.py:3:8 "
                'raises unless DEMO_LAUNCHER is "1".'
            ],
        ),
    ],
    ids=["unset", "the-required-value", "a-refused-value"],
)
def test_a_requirement_without_a_condition_binds_only_the_values_the_profile_sets(
    tmp_path: Path, env: str, found: list[str]
) -> None:
    write_tree(tmp_path, {"src/setup.py": SETUP, "registry.yaml": REGISTRY.format(env=env)})
    result = run_knobs("check", cwd=tmp_path)
    assert [line for line in result.stdout.splitlines() if "KNB1" in line] == found
