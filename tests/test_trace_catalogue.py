"""`knobs trace` labels the reads of catalogued variables with their entry, a C-level read
through getenv included, and `--profile bitwise` fails when the run's value differs."""

from __future__ import annotations

import json
import os
import re
import sys
from pathlib import Path

import pytest

from knobregistry.trace.catalogued import catalogued
from knobregistry.trace.model import Level, Read, Seen
from knobregistry.trace.native import find_compiler
from tests.conftest import run_knobs, write_tree

PROGRAM = """\
import ctypes

libc = ctypes.CDLL(None)
libc.getenv.restype = ctypes.c_char_p
libc.getenv(b"NCCL_ALGO")
print("done")
"""

REGISTRY = """\
version: 1
scan:
  paths: [app]
  policy: all
knobs: {}
external:
  NCCL_ALGO:
    library: NCCL
    description: collective algorithm
    role: stack
    deterministic: Ring
    source: https://docs.nvidia.com/deeplearning/nccl/user-guide/docs/env.html
profiles:
  bitwise:
    description: Bit for bit.
    kind: bitwise
    select:
      - role: stack
        set: deterministic
"""

LABEL = "NCCL / RCCL: collective algorithm; deterministic: Ring; this run:"

needs_compiler = pytest.mark.skipif(
    not sys.platform.startswith("linux") or find_compiler() is None,
    reason="the C level needs Linux and a C compiler",
)


@pytest.fixture
def project(tmp_path: Path) -> Path:
    root = write_tree(tmp_path / "project", {"app/main.py": PROGRAM, "registry.yaml": REGISTRY})
    (root / ".git").mkdir()
    return root


def _trace(project: Path, *args: str, env: dict[str, str]) -> tuple[int, str, str]:
    assert "NCCL_ALGO" not in os.environ
    done = run_knobs(
        "trace", *args, "--", sys.executable, "app/main.py", cwd=project, env=env
    )  # fmt: skip
    return done.returncode, done.stdout, done.stderr


@needs_compiler
def test_a_c_level_read_of_nccl_algo_names_its_entry_and_fails_the_profile(
    project: Path,
) -> None:
    status, out, err = _trace(project, "--profile", "bitwise", env={})
    assert (status, out) == (1, "done\n"), err
    assert "Stack settings the run consulted (`knobs catalogue` has their sources):\n" in err
    # Python reads PYTHONHASHSEED through getenv at start-up: its line pads the column.
    assert re.search(rf"^  NCCL_ALGO +{re.escape(LABEL)} unset$", err, re.MULTILINE), err
    assert "\n  NCCL_ALGO: expected 'Ring', found unset (read by c at " in err


@needs_compiler
def test_the_deterministic_value_passes(project: Path) -> None:
    status, _, err = _trace(project, "--profile", "bitwise", env={"NCCL_ALGO": "Ring"})
    assert status == 0, err
    assert re.search(rf"^  NCCL_ALGO +{re.escape(LABEL)} 'Ring'$", err, re.MULTILINE), err
    assert "\nProfile bitwise: 0 differences\n" in err


@needs_compiler
def test_the_label_is_in_the_json_trace(project: Path) -> None:
    out = project / "trace.json"
    status, _, err = _trace(project, "--out", str(out), env={"NCCL_ALGO": "Tree"})
    assert status == 0, err
    document = json.loads(out.read_text(encoding="utf-8"))
    assert [c for c in document["catalogued"] if c["name"] == "NCCL_ALGO"] == [
        {
            "name": "NCCL_ALGO",
            "libraries": ["NCCL", "RCCL"],
            "meaning": "collective algorithm",
            "deterministic": "Ring",
            "this_run": ["'Tree'"],
        }
    ]


def _read(name: str, seen: Seen, value: str | None) -> Read:
    return Read(name=name, level=Level.C, seen=seen, value=value, count=1, sites=())


def test_labels_only_catalogued_variables_and_every_value_seen() -> None:
    reads = [
        _read("APP_OTHER", Seen.VALUE, "1"),
        _read("TORCH_COMPILE_DISABLE", Seen.VALUE, "1"),
        _read("TORCH_COMPILE_DISABLE", Seen.VALUE, None),
        _read("torch.use_deterministic_algorithms", Seen.VALUE, None),
    ]
    labels = [(c.name, c.label()) for c in catalogued(reads)]
    assert labels == [
        (
            "TORCH_COMPILE_DISABLE",
            "torch: torch.compile (Dynamo and Inductor) off; deterministic: 1; "
            "this run: '1', unset",
        )
    ]
