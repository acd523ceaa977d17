"""Exported values over the per-variable limit of Linux are refused in one line (row 15 of
issue 41): Linux refuses to start any program whose environment or command line holds one
string (NAME=value, or an argument) of more than MAX_ARG_STRLEN, 131,072 bytes with its
final NUL, so after sourcing a 200 KB value every command failed with "Argument list too
long". The limit is applied whatever the machine exporting, as the recipe runs on Linux."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest
import yaml

from knobregistry.export import FORMATS, Part
from knobregistry.export.common import MAX_ARG_STRLEN
from tests.conftest import run_knobs

VARIABLE_FORMATS = [f.name for f in FORMATS if Part.VARIABLES in f.holds]


def _project(root: Path, value: str, flag: str = "x") -> Path:
    registry = {
        "version": 1,
        "external": {"BIG": {"description": "A value."}},
        "config": {"data_path": {"backend": "megatron", "description": "A flag."}},
        "profiles": {
            "p": {"kind": "custom", "description": "D.", "env": {"BIG": value}},
            "m": {"kind": "custom", "description": "D.", "config": {"data_path": flag}},
        },
    }
    (root / "registry.yaml").write_text(yaml.safe_dump(registry), encoding="utf-8")
    return root


@pytest.mark.parametrize("fmt", VARIABLE_FORMATS)
def test_a_value_over_the_limit_is_refused(tmp_path: Path, fmt: str) -> None:
    root = _project(tmp_path, "v" * 200_000)
    done = run_knobs("export", "-p", "p", "-f", fmt, cwd=root)
    assert (done.returncode, done.stdout) == (2, "")
    assert done.stderr == (
        "knobs export: error: cannot export BIG: its value is 200,000 bytes, and Linux starts "
        "no program whose environment holds a variable over 131,072 bytes (NAME=value and a "
        'NUL: MAX_ARG_STRLEN); every command after sourcing it would fail with "Argument list '
        'too long". Keep the value in a file the program reads, and export its path.\n'
    )


def test_the_largest_value_linux_takes_is_exported_and_runs(tmp_path: Path) -> None:
    largest = MAX_ARG_STRLEN - len("BIG=") - 1
    root = _project(tmp_path, "v" * largest)
    done = run_knobs("export", "-p", "p", "-o", "env.sh", cwd=root)
    assert done.returncode == 0, done.stderr
    ran = subprocess.run(
        ["bash", "-c", ". ./env.sh && /bin/echo ok"], cwd=root, capture_output=True, text=True
    )
    assert (ran.returncode, ran.stdout) == (0, "ok\n")
    over = tmp_path / "over"
    over.mkdir()
    _project(over, "v" * (largest + 1))
    assert run_knobs("export", "-p", "p", cwd=over).returncode == 2


def test_a_megatron_flag_over_the_limit_is_refused(tmp_path: Path) -> None:
    root = _project(tmp_path, "1", flag="d" * 200_000)
    done = run_knobs("export", "-p", "m", "-f", "megatron-args", cwd=root)
    assert (done.returncode, done.stdout) == (2, "")
    assert done.stderr == (
        "knobs export: error: cannot write config.data_path as a Megatron-LM flag: its value is "
        "200,000 bytes, and Linux starts no program with a command-line argument over 131,072 "
        "bytes (MAX_ARG_STRLEN, its NUL included); set it in the trainer's config.\n"
    )
