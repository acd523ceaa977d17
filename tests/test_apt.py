"""tests/apt.py: what it says when it cannot install, and that it installs only what is missing."""

from __future__ import annotations

import pytest

from tests import apt


def _no_run(*args: object, **kwargs: object) -> None:
    raise AssertionError("apt-get was run")


def test_nothing_is_installed_when_every_command_is_there(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr("tests.apt.shutil.which", lambda name: f"/usr/bin/{name}")
    monkeypatch.setattr("tests.apt.subprocess.run", _no_run)
    apt.install(("chromium",), ("chromium",), "Chromium")


def test_a_user_other_than_root_is_told_what_would_be_installed(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(
        "tests.apt.shutil.which", lambda name: "/usr/bin/apt-get" if name == "apt-get" else None
    )
    monkeypatch.setattr("tests.apt.os.geteuid", lambda: 1000)
    monkeypatch.setattr("tests.apt.subprocess.run", _no_run)
    with pytest.raises(apt.Unavailable) as unavailable:
        apt.install(("slurm-wlm", "munge"), ("sbatch", "squeue"), "Slurm")
    assert str(unavailable.value) == (
        "Slurm is not installed (sbatch, squeue missing); as root, apt-get would install "
        "slurm-wlm and munge"
    )
