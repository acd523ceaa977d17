"""Integers are read with a digit limit, refused in one line past it (rows 13 and 14 of issue
41): a 5000-digit integer in a checksums record, a `--baseline`, a `--trace` file, the
registry (`seed: 0xfff...`) or pyproject.toml ended in a ValueError traceback (Python refuses
to convert more than 4,300 digits, and a hexadecimal one it converts cannot be printed)."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest

from knobregistry._io.digits import MAX_DIGITS
from knobregistry._io.jsontext import loads
from knobregistry.registry import Verdict
from knobregistry.triage import judge, parse_compare
from tests.conftest import run_knobs, write_tree
from tests.test_checksums_compare import HEADER, records, write_run

HUGE = "1" + "0" * 5000
TOO_MANY = f"a number of 5001 digits, more than the {MAX_DIGITS} knobs reads"


def test_json_with_a_huge_integer_is_a_decoding_error() -> None:
    with pytest.raises(json.JSONDecodeError) as caught:
        loads('{"a": 1,\n "b": ' + HUGE + "}")
    assert (caught.value.msg, caught.value.lineno, caught.value.colno) == (TOO_MANY, 2, 7)
    assert loads('{"a": ' + "9" * MAX_DIGITS + "}") == {"a": int("9" * MAX_DIGITS)}
    assert loads('{"a": "' + HUGE + '"}') == {"a": HUGE}  # a string of digits is a string


@pytest.mark.parametrize(
    ("text", "line"),
    [
        (json.dumps(HEADER) + '\n{"step": ' + HUGE + "}\n", 2),
        ('{"format": "knobs-checksums", "version": ' + HUGE + "}\n", 1),
    ],
    ids=["record", "header"],
)
def test_a_checksums_record_with_a_huge_integer_is_an_error(
    tmp_path: Path, text: str, line: int
) -> None:
    run = write_run(tmp_path, 1, {})
    other = write_run(tmp_path, 2, {0: records()})
    (run.folder / "ck" / "rank-0.jsonl").write_text(text)
    assert judge(parse_compare("checksums:ck"), [run, other], None) == (
        Verdict.ERROR,
        f"run 1 wrote ck/rank-0.jsonl, whose line {line} is not JSON ({TOO_MANY})",
    )


REGISTRY = """\
version: 1
scan:
  paths: [src]
knobs:
  SYN_A:
    default: "1"
    default_on: true
    triage: untriaged
"""


def test_a_baseline_with_a_huge_integer_is_one_line(tmp_path: Path) -> None:
    root = write_tree(tmp_path, {"registry.yaml": REGISTRY, "src/m.py": "X = 1\n"})
    (root / "base.json").write_text('{"version": 1,\n "findings": ' + HUGE + "}\n")
    done = run_knobs("check", "--baseline", "base.json", cwd=root)
    assert (done.returncode, done.stdout) == (2, "")
    assert done.stderr.endswith(f"base.json:2:14: the baseline is not valid JSON: {TOO_MANY}.\n")
    assert "Traceback" not in done.stderr


def test_a_trace_file_with_a_huge_integer_is_one_line(tmp_path: Path) -> None:
    root = write_tree(tmp_path, {"registry.yaml": REGISTRY, "src/m.py": "X = 1\n"})
    (root / "t.json").write_text('{"reads": [], "exit_status": ' + HUGE + "}\n")
    done = run_knobs(
        "triage",
        "-k",
        "SYN_A",
        "--trace",
        "t.json",
        "--record",
        "--",
        sys.executable,
        "-c",
        "0",
        cwd=root,
    )
    assert (done.returncode, done.stdout) == (2, "")
    assert done.stderr == (
        "knobs triage: error: t.json is not JSON; write one with `knobs trace --out t.json -- "
        "COMMAND`.\n"
    )


SEEDED = """\
version: 1
scan:
  paths: [src]
config:
  seed:
    backend: megatron
    description: The seed.
profiles:
  bitwise:
    description: Bit for bit.
    kind: bitwise
    config:
      seed: {seed}
"""


@pytest.mark.parametrize("seed", ["0x" + "f" * 5000, "1" * 5000, "-" + "1" * 5000])
@pytest.mark.parametrize(
    "command", [("check",), ("export", "-p", "bitwise", "-f", "config"), ("docs",)]
)
def test_a_huge_integer_in_the_registry_is_one_problem(
    tmp_path: Path, seed: str, command: tuple[str, ...]
) -> None:
    root = write_tree(tmp_path, {"registry.yaml": SEEDED.format(seed=seed), "src/m.py": "X=1\n"})
    done = run_knobs(*command, cwd=root)
    assert (done.returncode, done.stdout) == (2, "")
    digits = len(seed.lstrip("-").removeprefix("0x"))
    assert done.stderr.splitlines()[0] == (
        f"registry.yaml:13:13: profiles.bitwise.config.seed: the number {seed[:60]}... has "
        f"{digits} digits, more than the {MAX_DIGITS} a registry holds; write a smaller one, "
        "or quote it to keep it as a string."
    )


def test_a_seed_of_a_few_digits_still_loads(tmp_path: Path) -> None:
    seeded = SEEDED.format(seed="0xDEADBEEF")
    root = write_tree(tmp_path, {"registry.yaml": seeded, "src/m.py": "X=1\n"})
    done = run_knobs("export", "-p", "bitwise", "-f", "config", cwd=root)
    assert (done.returncode, done.stdout.splitlines()[-1]) == (0, "seed: 3735928559")


def test_a_huge_integer_in_pyproject_is_one_line(tmp_path: Path) -> None:
    pyproject = f"[tool.knobs]\nlaunch_facts = []\nother = {HUGE}\n"
    root = write_tree(
        tmp_path, {"registry.yaml": REGISTRY, "src/m.py": "X = 1\n", "pyproject.toml": pyproject}
    )
    done = run_knobs("check", cwd=root)
    assert (done.returncode, done.stdout) == (2, "")
    assert "Traceback" not in done.stderr and len(done.stderr.splitlines()) == 1
    assert "pyproject.toml: cannot read it to look for [tool.knobs]: " in done.stderr
