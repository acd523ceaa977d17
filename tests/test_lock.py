"""Registry writes from concurrent commands: one at a time, each on the file as the last left it.

Real processes: `knobs triage --record` started together, each recording its own knob;
writers hammering one file under the lock; a holder that outlasts the timeout.
"""

from __future__ import annotations

import os
import subprocess
import sys
import threading
from pathlib import Path

import pytest

from knobregistry._io.lock import LockError, lock_path, locked
from knobregistry.registry import Triage, load_registry
from tests.conftest import REPO, write_tree

KNOBS = (sys.executable, "-m", "knobregistry")
HANG_GUARD_S = 300  # a hang fails the test instead of blocking the suite; nothing is timed
TOGETHER = 6
# A probe that answers at once: the runs end together, so the records do too.
PROBE = """echo '{"probe": "knobs-probe", "host": "node-1"}'"""


def registry(count: int) -> str:
    entries = "".join(
        f'  K{i}:\n    default: "1"\n    default_on: true\n    triage: untriaged\n'
        for i in range(count)
    )
    return f"version: 1\nknobs:\n{entries}"


def test_records_finishing_together_each_land_in_the_registry(tmp_path: Path) -> None:
    """Each process reads the registry, adds its verdict and writes it back; unlocked, a
    write made from an older read dropped the verdicts written since, and said "Recorded"."""
    project = write_tree(tmp_path, {"registry.yaml": registry(TOGETHER)})
    processes = [
        subprocess.Popen(
            [*KNOBS, "triage", "-k", f"K{i}", "--record", "--probe", PROBE, "--", "echo", "loss"],
            cwd=project,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        for i in range(TOGETHER)
    ]
    for process in processes:
        out, err = process.communicate(timeout=HANG_GUARD_S)
        assert process.returncode == 0, err
        assert "Recorded in registry.yaml:" in out
    knobs = load_registry(project / "registry.yaml").knobs
    assert {name: knobs[name].triage for name in knobs} == {
        f"K{i}": Triage.REPRODUCIBLE for i in range(TOGETHER)
    }
    for name, knob in knobs.items():
        assert knob.evidence is not None and len(knob.evidence.records) == 1, name
    assert sorted(p.name for p in project.iterdir()) == [".knobs", "registry.yaml"]


COUNT = """
import sys
from pathlib import Path
from knobregistry._io.lock import locked

counter = Path(sys.argv[1])
for _ in range(int(sys.argv[2])):
    with locked(counter):
        counter.write_text(str(int(counter.read_text()) + 1))  # not atomic, on purpose
"""


def test_writers_hammering_one_file_take_turns(tmp_path: Path) -> None:
    """Every holder removes the lock file as it lets go; one that was waiting on the removed
    file locks the one now at the path instead (without that, increments are lost)."""
    counter = tmp_path / "counter"
    counter.write_text("0")
    script = tmp_path / "count.py"
    script.write_text(COUNT)
    environment = {**os.environ, "PYTHONPATH": str(REPO)}
    writers = [
        subprocess.Popen([sys.executable, str(script), str(counter), "100"], env=environment)
        for _ in range(TOGETHER)
    ]
    for writer in writers:
        assert writer.wait(timeout=HANG_GUARD_S) == 0
    assert counter.read_text() == str(100 * TOGETHER)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["count.py", "counter"]


HOLD = """
import sys
from pathlib import Path
from knobregistry._io.lock import locked

with locked(Path(sys.argv[1])):
    print("held", flush=True)
    sys.stdin.read()  # until the test closes it
"""


def test_a_lock_held_past_the_timeout_names_the_lock_and_its_holder(tmp_path: Path) -> None:
    (tmp_path / "registry.yaml").write_text("version: 1\n")
    (tmp_path / "hold.py").write_text(HOLD)
    holder = subprocess.Popen(
        [sys.executable, "hold.py", "registry.yaml"],
        cwd=tmp_path,
        env={**os.environ, "PYTHONPATH": str(REPO)},
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        text=True,
    )
    try:
        assert holder.stdout is not None and holder.stdout.readline() == "held\n"
        with (
            pytest.raises(LockError) as caught,
            locked(tmp_path / "registry.yaml", "registry.yaml", timeout=0.2),
        ):
            pytest.fail("the lock was had while another process held it")
    finally:
        holder.communicate("", timeout=HANG_GUARD_S)
    assert str(caught.value) == (
        "cannot write registry.yaml: another command has held its lock, registry.yaml.lock, "
        f"for more than 0.2 s: process {holder.pid} ({sys.executable} hold.py registry.yaml); "
        "wait for it to finish, or stop it, then try again."
    )
    assert holder.returncode == 0
    assert not lock_path(tmp_path / "registry.yaml").exists()  # removed by its holder


def test_the_lock_is_reentrant_in_a_thread_and_exclusive_between_threads(tmp_path: Path) -> None:
    target = tmp_path / "registry.yaml"
    target.write_text("version: 1\n")
    other: list[str] = []

    def another_thread() -> None:
        try:
            with locked(target, timeout=0.2):
                other.append("had it")
        except LockError:
            other.append("waited")

    with locked(target), locked(target):  # a use case that locks, within a command that does
        assert lock_path(target).exists()
        thread = threading.Thread(target=another_thread)
        thread.start()
        thread.join(timeout=HANG_GUARD_S)
    assert other == ["waited"]
    assert not lock_path(target).exists()


def test_through_a_symlink_the_lock_is_beside_the_file_it_points_to(tmp_path: Path) -> None:
    shared = tmp_path / "shared"
    shared.mkdir()
    (shared / "registry.yaml").write_text("version: 1\n")
    (tmp_path / "registry.yaml").symlink_to("shared/registry.yaml")
    assert lock_path(tmp_path / "registry.yaml") == (shared / "registry.yaml.lock").resolve()


def test_a_lock_path_that_is_a_folder_is_refused(tmp_path: Path) -> None:
    (tmp_path / "registry.yaml.lock").mkdir()
    with pytest.raises(LockError) as caught, locked(tmp_path / "registry.yaml", "registry.yaml"):
        pytest.fail("locked through a folder")
    assert str(caught.value) == (
        "cannot write registry.yaml: its lock file registry.yaml.lock cannot be opened "
        "(Is a directory)."
    )
