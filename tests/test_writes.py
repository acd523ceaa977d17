"""Every command that writes: a clean exit 2 naming the path and the reason on any OS error,
writes through a symlink update the file it points to, and no temporary file survives an
interruption the process can observe (Ctrl-C, SIGTERM, SIGHUP)."""

from __future__ import annotations

import os
import re
import shutil
import signal
import subprocess
import sys
import tempfile
from collections.abc import Iterator
from pathlib import Path

import pytest

from knobregistry._io import procfs
from knobregistry._io.atomic import write_atomic
from tests.conftest import as_nobody, run_knobs, write_tree
from tests.processes import hangup_default, hangup_ignored, run_command, run_python

REGISTRY = """\
version: 1
scan:
  paths: [pkg]
knobs:
  DEMO_FUSED:
    default: "1"
    default_on: true
    triage: untriaged
profiles:
  bitwise:
    kind: custom
    description: Every fusion off.
    env:
      DEMO_FUSED: "0"
"""
MODEL = 'import os\nFUSED = os.environ.get("DEMO_FUSED", "1") != "0"\n'
NEW_GATE = 'import os\nOTHER = os.environ.get("DEMO_OTHER", "1") != "0"\n'


@pytest.fixture
def project() -> Iterator[Path]:
    """A project any user can read and write in (a folder of its own under /tmp)."""
    folder = Path(tempfile.mkdtemp(prefix="knobs-writes-"))
    folder.chmod(0o777)
    write_tree(folder, {"registry.yaml": REGISTRY, "pkg/model.py": MODEL})
    for path in folder.rglob("*"):
        path.chmod(0o777 if path.is_dir() else 0o666)
    yield folder
    for path in folder.rglob("*"):
        if path.is_dir() and not path.is_symlink():
            path.chmod(0o777)
    shutil.rmtree(folder)


KNOBS = (sys.executable, "-m", "knobregistry")


def unprivileged(*args: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    """``knobs ARGS`` as a user whom file permissions bind (root is not), or skip."""
    if os.geteuid() != 0:
        return run_knobs(*args, cwd=cwd)
    prefix = as_nobody()
    if prefix is None:
        pytest.skip("running as root, and no unprivileged user can run this checkout")
    environment = {**os.environ, "NO_COLOR": "1", "KNOBS_CACHE_DIR": str(cwd / ".cache")}
    return run_command(*prefix, *KNOBS, *args, cwd=cwd, env=environment)


def read_only_folder(project: Path) -> Path:
    folder = project / "ro"
    folder.mkdir()
    folder.chmod(0o555)
    return folder


def leftovers(folder: Path) -> list[str]:
    return sorted(p.name for p in folder.iterdir() if p.name.endswith(".tmp"))


# --- export ---------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("target", "reason"),
    [
        ("missing/env.sh", "its folder does not exist"),
        ("/dev/full", "it is a device, not a regular file"),
        ("fifo", "it is a named pipe, not a regular file"),
    ],
)
def test_export_output_that_cannot_be_written(project: Path, target: str, reason: str) -> None:
    os.mkfifo(project / "fifo")
    result = run_knobs("export", "-p", "bitwise", "-o", target, cwd=project)
    shown = os.path.relpath(target, project) if target.startswith("/") else target
    assert (result.returncode, result.stdout) == (2, "")
    assert result.stderr == f"knobs export: error: cannot write {shown}: {reason}.\n"


@pytest.mark.parametrize(
    ("command", "error"),
    [
        pytest.param(
            ("export", "-p", "bitwise", "-o", "ro/env.sh"),
            "knobs export: error: cannot write ro/env.sh: Permission denied.\n",
            id="export",
        ),
        pytest.param(
            ("docs", "--write", "ro/knobs.md", "-r", "registry.yaml"),
            "knobs docs: error: cannot write ro/knobs.md: Permission denied.\n",
            id="docs",
        ),
    ],
)
def test_a_write_into_a_read_only_folder(
    project: Path, command: tuple[str, ...], error: str
) -> None:
    read_only_folder(project)
    result = unprivileged(*command, cwd=project)
    assert (result.returncode, result.stdout, result.stderr) == (2, "", error)


def test_export_to_a_full_standard_output(project: Path) -> None:
    with Path("/dev/full").open("w") as full:
        result = subprocess.run(
            [*KNOBS, "export", "-p", "bitwise"],
            cwd=project,
            stdout=full,
            stderr=subprocess.PIPE,
            text=True,
            check=False,
        )
    assert (result.returncode, result.stderr) == (
        2,
        "knobs export: error: cannot write standard output: No space left on device.\n",
    )


@pytest.mark.parametrize(
    ("command", "target", "written"),
    [
        pytest.param(
            ("export", "-p", "bitwise", "-o", "env.sh"),
            "shared/env.sh",
            "export DEMO_FUSED='0'\n",
            id="export",
        ),
        pytest.param(
            ("docs", "--write", "knobs.md", "-r", "registry.yaml"),
            "docs/knobs.md",
            "DEMO_FUSED",
            id="docs",
        ),
    ],
)
def test_a_write_through_a_symlink_writes_the_file_it_points_to(
    project: Path, command: tuple[str, ...], target: str, written: str
) -> None:
    """The command writes to a link in the project with the name of ``target``, the file
    it points to."""
    link = Path(target).name
    (project / target).parent.mkdir()
    (project / target).write_text("old\n")
    (project / link).symlink_to(target)
    result = run_knobs(*command, cwd=project)
    assert result.returncode == 0, result.stderr
    assert (project / link).is_symlink()
    assert written in (project / target).read_text()
    assert leftovers(project) == leftovers((project / target).parent) == []


# --- check --write-baseline -----------------------------------------------------------------


def test_write_baseline_to_a_device_reads_nothing_and_writes_nothing(project: Path) -> None:
    (project / "pkg" / "other.py").write_text(NEW_GATE)
    result = run_knobs("check", "--write-baseline", "/dev/full", cwd=project)
    shown = os.path.relpath("/dev/full", project)
    assert (result.returncode, result.stdout) == (2, "")
    # Not "pass --force": --force cannot replace a device either.
    assert result.stderr == (
        f"knobs check: error: cannot write {shown}: it is a device, not a regular file.\n"
    )
    forced = run_knobs("check", "--write-baseline", "/dev/full", "--force", cwd=project)
    assert (forced.returncode, forced.stdout) == (2, "")
    assert forced.stderr == (
        f"knobs check: error: cannot write {shown}: it is a device, not a regular file.\n"
    )


def test_write_baseline_into_a_read_only_folder(project: Path) -> None:
    (project / "pkg" / "other.py").write_text(NEW_GATE)
    read_only_folder(project)
    result = unprivileged("check", "--write-baseline", "ro/baseline.json", cwd=project)
    assert (result.returncode, result.stdout) == (2, "")
    assert result.stderr == (
        "knobs check: error: cannot write ro/baseline.json: Permission denied.\n"
    )


def test_write_baseline_into_a_missing_folder(project: Path) -> None:
    result = run_knobs("check", "--write-baseline", "gone/baseline.json", cwd=project)
    assert (result.returncode, result.stdout) == (2, "")
    assert result.stderr == (
        "knobs check: error: cannot write gone/baseline.json: its folder does not exist.\n"
    )


# --- docs --write ---------------------------------------------------------------------------


def test_docs_write_to_a_device_reads_nothing(project: Path) -> None:
    result = run_knobs("docs", "--write", "/dev/full", cwd=project)
    shown = os.path.relpath("/dev/full", project)
    assert (result.returncode, result.stdout) == (2, "")
    assert result.stderr == (
        f"knobs docs: error: cannot read {shown}: it is a device, not a regular file.\n"
    )


def test_docs_write_of_a_fifo_does_not_hang(project: Path) -> None:
    os.mkfifo(project / "knobs.md")
    result = run_knobs("docs", "--write", "knobs.md", cwd=project)
    assert (result.returncode, result.stdout) == (2, "")
    assert result.stderr == (
        "knobs docs: error: cannot read knobs.md: it is a named pipe, not a regular file.\n"
    )


def test_docs_write_into_a_missing_folder(project: Path) -> None:
    result = run_knobs("docs", "--write", "missing/knobs.md", "-r", "registry.yaml", cwd=project)
    assert (result.returncode, result.stdout) == (2, "")
    assert result.stderr == (
        "knobs docs: error: cannot write missing/knobs.md: the folder missing does not exist.\n"
    )
    assert not (project / "missing").exists()


# --- triage --record ------------------------------------------------------------------------


def test_triage_record_through_a_symlinked_registry_updates_the_shared_file(
    project: Path,
) -> None:
    shared = project / "shared"
    shared.mkdir()
    (project / "registry.yaml").rename(shared / "registry.yaml")
    (shared / "pkg").symlink_to(project / "pkg")
    (project / "registry.yaml").symlink_to("shared/registry.yaml")
    (project / "job.py").write_text('print("loss 2.5")\n')
    result = run_knobs(
        "triage", "-k", "DEMO_FUSED", "--record", "--", sys.executable, "job.py", cwd=project
    )
    assert result.returncode == 0, result.stderr
    assert (project / "registry.yaml").is_symlink()
    text = (shared / "registry.yaml").read_text()
    assert "    triage: reproducible\n" in text
    assert "      records:\n" in text
    assert leftovers(project) == leftovers(shared) == []


def test_triage_record_into_a_read_only_folder_keeps_the_results(project: Path) -> None:
    project.chmod(0o555)
    try:  # the job is a system program: this user may not run the test's Python
        result = unprivileged(
            "triage", "-k", "DEMO_FUSED", "--record", "--", "echo", "loss 2.5", cwd=project
        )
    finally:
        project.chmod(0o777)
    assert result.returncode == 2
    assert "alone      DEMO_FUSED   reproducible      2\n" in result.stdout
    note = result.stderr.splitlines()[0]
    assert re.fullmatch(
        r"knobs triage: note: cannot make \.knobs/triage here \(Permission denied\); the "
        r"journal goes in /\S+/knobs-triage-\w+ instead \(name a folder with --dir DIR\)\.",
        note,
    ), note
    assert result.stderr.splitlines()[-1] == (  # the lock, beside it, is made first
        "knobs triage: error: cannot write registry.yaml: its lock file registry.yaml.lock "
        "cannot be opened (Permission denied)."
    )
    assert (project / "registry.yaml").read_text() == REGISTRY


# --- interruptions --------------------------------------------------------------------------

INTERRUPTED_WRITE = """
import os, signal, sys
from pathlib import Path
from knobregistry._io.atomic import write_atomic

target = Path(sys.argv[1])
signum = getattr(signal, sys.argv[2])
real_fsync = os.fsync

def fsync(descriptor):  # the signal comes while the temporary file is written
    os.kill(os.getpid(), signum)
    real_fsync(descriptor)

os.fsync = fsync
write_atomic(target, "new\\n" * 1000)
print("not reached")
"""


@pytest.mark.parametrize("name", ["SIGTERM", "SIGHUP", "SIGINT"])
def test_an_observed_signal_leaves_no_temporary_file(tmp_path: Path, name: str) -> None:
    target = tmp_path / "env.sh"
    target.write_text("old\n")
    script = tmp_path / "interrupt.py"
    script.write_text(INTERRUPTED_WRITE)
    result = run_python(script, target, name, preexec=hangup_default)  # as under nohup too
    assert result.returncode == -getattr(signal, name), result.stderr
    assert result.stdout == ""
    assert sorted(p.name for p in tmp_path.iterdir()) == ["env.sh", "interrupt.py"]
    assert target.read_text() == "old\n"


def test_under_nohup_sighup_stays_ignored_and_the_write_completes(tmp_path: Path) -> None:
    target = tmp_path / "env.sh"
    target.write_text("old\n")
    script = tmp_path / "interrupt.py"
    script.write_text(INTERRUPTED_WRITE)
    result = run_python(script, target, "SIGHUP", preexec=hangup_ignored)
    assert (result.returncode, result.stdout) == (0, "not reached\n"), result.stderr
    assert sorted(p.name for p in tmp_path.iterdir()) == ["env.sh", "interrupt.py"]
    assert target.read_text() == "new\n" * 1000


def test_a_write_killed_with_sigkill_is_cleaned_up_by_the_next(tmp_path: Path) -> None:
    # SIGKILL cannot be observed: it leaves the temporary file (never the target
    # half-written); the next write of that file removes it (issue 18).
    target = tmp_path / "env.sh"
    target.write_text("old\n")
    script = tmp_path / "interrupt.py"
    script.write_text(INTERRUPTED_WRITE)
    result = run_python(script, target, "SIGKILL")
    assert result.returncode == -signal.SIGKILL
    (stray,) = (p.name for p in tmp_path.iterdir() if p.name.endswith(".tmp"))
    assert re.fullmatch(r"\.env\.sh\.knobs-\d+-\d+\.\w+\.tmp", stray)
    assert target.read_text() == "old\n"
    # A write in progress elsewhere (a process still running: this one) is left alone.
    busy = tmp_path / f".env.sh.knobs-{os.getpid()}-{procfs.start_time(os.getpid())}.busy.tmp"
    busy.write_text("")
    write_atomic(target, "new\n")
    assert sorted(p.name for p in tmp_path.iterdir()) == [busy.name, "env.sh", "interrupt.py"]
    assert target.read_text() == "new\n"
