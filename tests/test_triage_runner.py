"""Running the command: its own working directory, resolved arguments, timeouts."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

from knobregistry._io import procfs
from knobregistry.triage import ORIGIN_VARIABLE, RUN_DIR_VARIABLE, Runner, resolve_arguments
from knobregistry.triage.runner import _group_empty
from tests.conftest import write_tree


def test_relative_arguments_naming_files_here_become_absolute(tmp_path: Path) -> None:
    write_tree(
        tmp_path, {"train.py": "", "conf/a.yaml": "", "bin/launch": "", "pkg/__init__.py": ""}
    )
    command = (
        "python",
        "train.py",
        "--config",
        "conf/a.yaml",
        "--config=conf/a.yaml",
        "--save",
        "params.pt",
        "--flag",
        "-m",
        "pkg",
        "conf",
        "/abs/path",
        "",
    )
    assert resolve_arguments(command, tmp_path) == (
        "python",  # a bare program name is looked up on PATH
        f"{tmp_path}/train.py",
        "--config",
        f"{tmp_path}/conf/a.yaml",
        f"--config={tmp_path}/conf/a.yaml",
        "--save",
        "params.pt",  # names nothing here: an output, relative to the run's folder
        "--flag",
        "-m",
        "pkg",  # a module name, even if a folder has that name
        f"{tmp_path}/conf",
        "/abs/path",
        "",
    )
    assert resolve_arguments(("bin/launch", "x"), tmp_path) == (f"{tmp_path}/bin/launch", "x")


SCRIPT = """
import os, sys
from pathlib import Path
Path("out.txt").write_text(os.getcwd())
print(os.environ["KNOBS_TRIAGE_RUN_DIR"], os.environ["KNOBS_TRIAGE_ORIGIN"], os.environ["X"])
print(Path(sys.argv[1]).read_text().strip())
print("to stderr", file=sys.stderr)
"""


def test_a_run_has_its_own_folder_and_finds_the_callers_files(tmp_path: Path) -> None:
    origin = write_tree(tmp_path / "origin", {"script.py": SCRIPT, "data.txt": "the data"})
    runner = Runner((sys.executable, "script.py", "data.txt"), origin, tmp_path / "runs")
    folder = runner.folder(7, "A + B", 2)
    assert folder == tmp_path / "runs" / "007-A+B" / "run-2"
    run = runner.run(folder, 2, {**os.environ, "X": "x-value"})
    assert (run.index, run.returncode, run.timed_out) == (2, 0, False)
    assert (folder / "out.txt").read_text() == str(folder)
    assert run.stdout.read_text().splitlines() == [f"{folder} {origin} x-value", "the data"]
    assert run.stderr.read_text() == "to stderr\n"
    assert run.stdout.parent == folder.parent  # beside the working directory, not in it
    assert (RUN_DIR_VARIABLE, ORIGIN_VARIABLE) == ("KNOBS_TRIAGE_RUN_DIR", "KNOBS_TRIAGE_ORIGIN")


def test_a_program_that_cannot_start(tmp_path: Path) -> None:
    runner = Runner(("./no-such-program",), tmp_path, tmp_path / "runs")
    run = runner.run(tmp_path / "runs" / "001-x" / "run-1", 1, dict(os.environ))
    assert run.returncode == 127
    assert run.stderr.read_text().startswith("knobs triage: cannot start ./no-such-program: ")


GRANDCHILD = """
import subprocess, sys, time
child = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(120)"])
open("child.pid", "w").write(str(child.pid))
print("started", flush=True)
time.sleep(120)
"""


def _gone(pid: int) -> bool:
    """Whether ``pid`` has ended (reaped, or a zombie waiting for its parent)."""
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except FileNotFoundError:
        return True
    return stat.rsplit(")", 1)[1].split()[0] in ("Z", "X")


def test_a_timeout_stops_the_run_and_its_children(tmp_path: Path) -> None:
    origin = write_tree(tmp_path / "origin", {"spawn.py": GRANDCHILD})
    runner = Runner((sys.executable, "spawn.py"), origin, tmp_path / "runs", timeout=1.0)
    folder = runner.folder(1, "baseline", 1)
    run = runner.run(folder, 1, dict(os.environ))
    assert (run.returncode, run.timed_out) == (None, True)
    assert run.stdout.read_text() == "started\n"
    pid = int((folder / "child.pid").read_text())
    # SIGKILL was sent before run() returned; wait for the kernel to finish the job.
    for _ in range(200):
        if _gone(pid):
            break
        time.sleep(0.05)
    assert _gone(pid)


# The run's leader starts a member that forks a child, leaves the run's group and never
# reaps the child: the child, exited at once, stays in the run's group as a zombie.
ZOMBIE_MAKER = """
import os, sys, time
child = os.fork()
if child == 0:
    os._exit(0)
os.waitid(os.P_PID, child, os.WEXITED | os.WNOWAIT)  # it has exited: a zombie, not reaped
os.setpgid(0, 0)
print(child, os.getpid(), flush=True)
time.sleep(300)
"""


def test_a_zombie_left_in_the_group_is_not_a_run_still_going(tmp_path: Path) -> None:
    """When a run has exited, triage waits (up to a grace period) for what it started to end;
    a zombie has ended, though it stays in the group until its parent, or init, reaps it."""
    write_tree(tmp_path, {"zombie.py": ZOMBIE_MAKER})
    leader = subprocess.Popen(
        [
            "sh",
            "-c",
            f'"{sys.executable}" zombie.py > pids & while [ ! -s pids ]; do sleep 0.01; done',
        ],
        cwd=tmp_path,
        start_new_session=True,
    )
    os.waitid(os.P_PID, leader.pid, os.WEXITED | os.WNOWAIT)  # exited, its group id kept
    zombie, member = map(int, (tmp_path / "pids").read_text().split())
    try:
        found = procfs.state(zombie)
        assert found is not None and found.zombie
        assert os.getpgid(zombie) == leader.pid != os.getpgid(member)
        assert _group_empty(leader)
    finally:
        os.kill(member, signal.SIGKILL)
        leader.wait()
