"""A small tree written to disk and scanned, for the tests of one knob's role and evidence."""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path

import pytest
from click.testing import CliRunner

from knobregistry.cli import main
from scanner import Knob, Polarity, Role, scan
from tests.conftest import write_tree

# A Triton kernel and the function that launches it (pkg/kernels.py in most role tests): the
# evidence chains name its lines, fused_rms_norm at 10 and _fwd_kernel at 6.
KERNEL = """\
import triton
import triton.language as tl


@triton.jit
def _fwd_kernel(x_ptr, n):
    tl.store(x_ptr, n)


def fused_rms_norm(x):
    _fwd_kernel[(1,)](x, 1)
    return x
"""


def scanned_knob(root: Path, files: Mapping[str, str | bytes], name: str) -> Knob:
    """Write ``files`` under ``root``, scan it on one process, and return the knob ``name``."""
    write_tree(root, files)
    knob = scan([root], root=root, jobs=1).knob(name)
    assert knob is not None, f"{name} is not among the knobs scanned"
    return knob


def role_facts(knob: Knob) -> tuple[Role, Polarity, str | None, str | None]:
    """What a role test asserts of a knob: its role, polarity, off value and the evidence."""
    return (knob.role, knob.polarity, knob.off_value, knob.role_reason)


def bitwise_exports(root: Path, monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """Run `knobs init .` then `knobs export --profile bitwise` in ``root`` (in process),
    each asserted to succeed, and return the lines the export wrote."""
    monkeypatch.chdir(root)
    runner = CliRunner()
    init = runner.invoke(main, ["init", "."])
    assert init.exit_code == 0, init.output
    exported = runner.invoke(main, ["export", "--profile", "bitwise"])
    assert exported.exit_code == 0, exported.output
    return exported.stdout.splitlines()
