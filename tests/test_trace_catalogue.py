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
            "must_stay_unset": False,
            "this_run": ["'Tree'"],
        }
    ]


TUNER_PROGRAM = PROGRAM.replace('b"NCCL_ALGO"', 'b"NCCL_TUNER_PLUGIN"')
TUNER_REGISTRY = REGISTRY.replace(
    "    deterministic: Ring\n",
    "    deterministic: Ring\n  NCCL_TUNER_PLUGIN:\n"
    "    library: NCCL\n    description: an external tuner plugin\n    role: stack\n"
    "    must_stay_unset: true\n",
)
TUNER_LABEL = (
    "NCCL / RCCL: an external tuner plugin that chooses each collective's algorithm, protocol "
    "and channels; deterministic: must stay unset; this run:"
)


@needs_compiler
def test_a_variable_that_must_stay_unset_is_labelled_and_fails_the_profile_when_set(
    tmp_path: Path,
) -> None:
    files = {"app/main.py": TUNER_PROGRAM, "registry.yaml": TUNER_REGISTRY}
    project = write_tree(tmp_path / "project", files)
    (project / ".git").mkdir()
    assert "NCCL_TUNER_PLUGIN" not in os.environ
    env = {"NCCL_TUNER_PLUGIN": "libtuner.so", "NCCL_ALGO": "Ring"}
    done = run_knobs(
        "trace", "--profile", "bitwise", "--", sys.executable, "app/main.py",
        cwd=project, env=env,
    )  # fmt: skip
    assert (done.returncode, done.stdout) == (1, "done\n"), done.stderr
    # The label is wrapped at the terminal's width: compare it with its spaces folded.
    flat = " ".join(done.stderr.split())
    assert f"NCCL_TUNER_PLUGIN {TUNER_LABEL} 'libtuner.so'" in flat, done.stderr
    assert "\n  NCCL_TUNER_PLUGIN: expected unset, found 'libtuner.so' (read by c at " in (
        done.stderr
    )
    unset = run_knobs(
        "trace", "--profile", "bitwise", "--", sys.executable, "app/main.py",
        cwd=project, env={"NCCL_ALGO": "Ring"},
    )  # fmt: skip
    assert unset.returncode == 0, unset.stderr
    assert f"NCCL_TUNER_PLUGIN {TUNER_LABEL} unset" in " ".join(unset.stderr.split())


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


def test_a_must_stay_unset_label_says_so_and_its_json_has_no_value() -> None:
    [found] = catalogued([_read("HK_BWD_DQ_KVB", Seen.VALUE, "64")])
    assert (found.deterministic, found.must_stay_unset) == (None, True)
    assert found.label() == (
        "Primus-Turbo: the KV tile width (64 or 128) of the HipKittens attention backward's dQ "
        "kernel, overriding the shape rule; it changes the order dQ is summed in; "
        "deterministic: must stay unset; this run: '64'"
    )
