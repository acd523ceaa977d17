"""Installable as documented: the wheel built from this tree installs into a fresh virtual
environment and its `knobs` runs with what the wheel ships (schemas, catalogue, rules)."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import sysconfig
from pathlib import Path

import pytest

from knobregistry.registry.schema import schema_text
from tests.conftest import REPO
from tests.processes import run_command

SOURCES = ("pyproject.toml", "README.md", "knobregistry", "scanner")


def _run(*command: str | Path, cwd: Path) -> subprocess.CompletedProcess[str]:
    environment = {**os.environ, "COLUMNS": "100", "NO_COLOR": "1", "TERM": "dumb"}
    environment.pop("PYTHONPATH", None)
    return run_command(*command, cwd=cwd, env=environment)


def _built_wheel(tmp_path: Path) -> Path:
    """The wheel of a copy of this tree (so that no build/ lands in the repository)."""
    source = tmp_path / "source"
    for name in SOURCES:
        if (REPO / name).is_dir():
            shutil.copytree(
                REPO / name, source / name, ignore=shutil.ignore_patterns("__pycache__")
            )
        else:
            source.mkdir(exist_ok=True)
            shutil.copy2(REPO / name, source / name)
    built = _run(
        sys.executable,
        "-c",
        f"from setuptools import build_meta as b; print(b.build_wheel({str(tmp_path)!r}))",
        cwd=source,
    )
    assert built.returncode == 0, built.stderr
    return tmp_path / built.stdout.strip().splitlines()[-1]


def _fresh_venv(tmp_path: Path) -> Path:
    """A new virtual environment that finds the dependencies (not knobregistry) in this
    one's site-packages, so that nothing is downloaded."""
    venv = tmp_path / "venv"
    made = _run(sys.executable, "-m", "venv", "--without-pip", venv, cwd=tmp_path)
    assert made.returncode == 0, made.stderr
    python = venv / "bin" / "python"
    purelib = _run(
        python, "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])", cwd=tmp_path
    )
    site = Path(purelib.stdout.strip())
    (site / "parent.pth").write_text(sysconfig.get_paths()["purelib"] + "\n", encoding="utf-8")
    return python


@pytest.mark.slow
def test_the_built_wheel_installs_and_runs_in_a_fresh_venv(tmp_path: Path) -> None:
    wheel = _built_wheel(tmp_path)
    assert wheel.name == "knobregistry-0.1.0-py3-none-any.whl"
    python = _fresh_venv(tmp_path)
    installed = _run(
        sys.executable,
        "-m",
        "pip",
        "--python",
        python,
        "install",
        "--no-deps",
        "--no-index",
        "--disable-pip-version-check",
        "--quiet",
        wheel,
        cwd=tmp_path,
    )
    assert installed.returncode == 0, installed.stderr
    knobs = python.parent / "knobs"
    where = _run(python, "-c", "import knobregistry; print(knobregistry.__file__)", cwd=tmp_path)
    assert Path(where.stdout.strip()).is_relative_to(python.parent.parent)  # not the clone's

    version = _run(knobs, "--version", cwd=tmp_path)
    assert (version.returncode, version.stdout) == (0, "knobs, version 0.1.0\n")

    project = tmp_path / "project"
    (project / "pkg").mkdir(parents=True)
    (project / "pkg/model.py").write_text(
        'import os\n\nHC = os.environ.get("PRIMUS_HC_TRITON", "1") != "0"\n', encoding="utf-8"
    )
    scanned = _run(knobs, "scan", "pkg", "--format", "json", cwd=project)
    assert scanned.returncode == 0, scanned.stderr
    (knob,) = json.loads(scanned.stdout)["knobs"]
    (site,) = knob["sites"]
    assert (knob["name"], knob["default_on"], site["path"], site["line"], site["column"]) == (
        "PRIMUS_HC_TRITON",
        True,
        "pkg/model.py",
        3,
        6,
    )

    # init writes the shipped schema beside the registry, its languages and compare modes
    # filled in from the installed tables; check validates against it
    init = _run(knobs, "init", "pkg", cwd=project)
    assert init.returncode == 0, init.stderr
    assert (project / "registry.schema.json").read_text(encoding="utf-8") == schema_text()
    check = _run(knobs, "check", cwd=project)
    assert (check.returncode, check.stdout) == (
        0,
        "No problems: 1 knob in 1 file checked against registry.yaml (policy all).\n",
    )

    rule = _run(knobs, "rule", "KNB001", cwd=tmp_path)
    assert (rule.returncode, rule.stdout.splitlines()[0]) == (0, "KNB001 UnregisteredKnob (error)")
    catalogue = _run(knobs, "catalogue", cwd=tmp_path)
    assert catalogue.returncode == 0, catalogue.stderr
    assert "CUBLAS_WORKSPACE_CONFIG" in catalogue.stdout


@pytest.mark.slow
def test_make_dist_builds_the_sdist_and_the_wheel_without_a_warning(tmp_path: Path) -> None:
    """`make dist` in a copy of this tree, with PYTHONDONTWRITEBYTECODE set (as in CI): the
    two files, and nothing on standard error (setuptools warned twice that byte-compiling
    was disabled). Its .venv stands in for the clone's: a script that runs this one."""
    source = tmp_path / "source"
    for name in (*SOURCES, "Makefile", "constraints.txt"):
        if (REPO / name).is_dir():
            ignore = shutil.ignore_patterns("__pycache__")
            shutil.copytree(REPO / name, source / name, ignore=ignore)
        else:
            source.mkdir(exist_ok=True)
            shutil.copy2(REPO / name, source / name)
    venv = tmp_path / "venv"
    (venv / "bin").mkdir(parents=True)
    (venv / "bin" / "python").write_text(f'#!/bin/sh\nexec {sys.executable} "$@"\n')
    (venv / "bin" / "python").chmod(0o755)
    (venv / ".core").touch()  # installed: newer than the copied pyproject.toml
    environment = {**os.environ, "PYTHONDONTWRITEBYTECODE": "1"}
    done = run_command(
        "make", "--no-print-directory", "dist", f"VENV={venv}", cwd=source, env=environment
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.splitlines()[-2:] == [
        "knobregistry-0.1.0-py3-none-any.whl",
        "knobregistry-0.1.0.tar.gz",
    ]
    assert "warning" not in done.stderr.replace("WARNING: Location", "")  # pip's index notes
    assert "byte-compiling" not in done.stdout + done.stderr
    # setuptools' egg-info would stay on sys.path in the tree, naming old entry points
    assert sorted(p.name for p in source.iterdir() if p.name.endswith(".egg-info")) == []
