"""`knobs triage --dir` / `--resume`: a sweep journaled as it runs, killed, and continued
without running again what finished; refusals to resume another sweep (golden output)."""

from __future__ import annotations

import json
import re
import signal
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import pytest

from knobregistry._io.procfs import alive
from knobregistry.registry import Sweep, Verdict
from knobregistry.triage import Outcome, Run, Setting
from knobregistry.triage.journal import Header, Journal, JournalError
from tests.conftest import run_knobs, write_tree

REGISTRY = """
version: 1
knobs:
  SYN_CLEAN:
    default: "1"
    default_on: true
    triage: untriaged
  SYN_RUNDIR:
    default: "1"
    default_on: true
    triage: untriaged
"""

# Each run logs its pid; with a file `hold` holding N, the runs after the N-th hang.
JOB = """
import os, time
from pathlib import Path

origin = Path(os.environ["KNOBS_TRIAGE_ORIGIN"])
log = origin / "runs.log"
with log.open("a") as file:
    file.write(f"{os.getpid()}\\n")
print("step 1 loss 2.5")
if os.environ.get("SYN_RUNDIR") == "1":
    print("written in", Path.cwd().name)
hold = origin / "hold"
if hold.exists() and len(log.read_text().split()) > int(hold.read_text()):
    time.sleep(300)
"""
KNOBS = (sys.executable, "-m", "knobregistry")
HANG_GUARD_S = 60


@pytest.fixture()
def project(tmp_path: Path) -> Path:
    return write_tree(tmp_path, {"registry.yaml": REGISTRY, "job.py": JOB})


def logged(project: Path) -> list[int]:
    log = project / "runs.log"
    return [int(p) for p in log.read_text().split()] if log.exists() else []


def journal_lines(folder: Path, kind: str) -> int:
    path = folder / "journal.jsonl"
    text = path.read_text() if path.exists() else ""
    return sum(1 for line in text.splitlines() if line.startswith(f'{{"{kind}"'))


def wait_until(condition: object, process: subprocess.Popen[str]) -> None:
    deadline = time.monotonic() + HANG_GUARD_S
    while not condition():  # type: ignore[operator]
        if process.poll() is not None:
            pytest.fail(f"triage ended early: {process.communicate()}")
        if time.monotonic() > deadline:
            process.kill()
            pytest.fail("triage did not get there in time")
        time.sleep(0.05)


def test_a_sweep_killed_with_sigkill_resumes_and_runs_only_what_is_left(project: Path) -> None:
    (project / "hold").write_text("3")  # baseline 1, 2, SYN_CLEAN 1 finish; SYN_CLEAN 2 hangs
    sweep = project / "sweep"
    process = subprocess.Popen(
        [*KNOBS, "triage", "--dir", "sweep", "--", sys.executable, "job.py"],
        cwd=project,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    wait_until(lambda: len(logged(project)) == 4 and journal_lines(sweep, "run") == 3, process)
    process.send_signal(signal.SIGKILL)  # the driver dies: no handler, nothing cleaned up
    process.communicate(timeout=HANG_GUARD_S)
    left = logged(project)[3]  # the run it left behind, hanging in its own process group
    assert alive(left)
    assert (journal_lines(sweep, "run"), journal_lines(sweep, "outcome")) == (3, 1)
    (project / "hold").unlink()

    resumed = run_knobs("triage", "--resume", "sweep", cwd=project)
    assert resumed.returncode == 1, resumed.stderr
    assert len(logged(project)) == 4 + 3  # SYN_CLEAN's run 2, SYN_RUNDIR's two runs
    assert not alive(left)
    lines = resumed.stderr.splitlines()
    assert lines[:3] == [
        "knobs triage: resuming sweep: 1 setting judged and 3 runs finished before.",
        f"knobs triage: the sweep's command: `{sys.executable} job.py`.",
        f"knobs triage: stopped 1 run the interrupted sweep left running (process group {left}).",
    ]
    assert lines[-1] == (
        "knobs triage: resumed sweep: 3 runs of the command now, 3 taken from the journal."
    )
    assert not (sweep / "runs").exists()  # every setting judged: the runs' folders went

    fresh = run_knobs("triage", "--dir", "fresh", "--", sys.executable, "job.py", cwd=project)
    assert len(logged(project)) == 7 + 6
    assert resumed.stdout == fresh.stdout  # the verdicts of an uninterrupted sweep
    assert "alone      SYN_RUNDIR   breaks-bitwise      2\n" in resumed.stdout
    assert "Runs of the command: 6 (baseline 2, alone 4).\n" in resumed.stdout

    again = run_knobs("triage", "--resume", "sweep", "--format", "json", cwd=project)
    assert len(logged(project)) == 13  # a finished sweep: nothing left to run
    assert json.loads(again.stdout)["runs_spent"]["total"] == 6
    assert again.stderr.splitlines()[-1] == (
        "knobs triage: resumed sweep: 0 runs of the command now, 6 taken from the journal."
    )


def test_a_new_sweep_says_where_its_journal_is(project: Path) -> None:
    done = run_knobs("triage", "-k", "SYN_CLEAN", "--", sys.executable, "job.py", cwd=project)
    assert done.returncode == 0, done.stderr
    (folder,) = (project / ".knobs" / "triage").iterdir()
    shown = f".knobs/triage/{folder.name}"
    assert done.stderr.splitlines()[0] == (
        f"knobs triage: journal in {shown}; continue an interrupted sweep with "
        f"`knobs triage --resume {shown}`."
    )
    assert (project / ".knobs" / ".gitignore").read_text().endswith("\n*\n")
    assert [p.name for p in folder.iterdir()] == ["journal.jsonl"]
    header = json.loads((folder / "journal.jsonl").read_text().splitlines()[0])
    assert header["command"] == [sys.executable, "job.py"]
    assert (header["knobs"], header["compare"], header["format"]) == (["SYN_CLEAN"], "stdout", 2)


def started(project: Path, *args: str) -> None:
    done = run_knobs(
        "triage", "--dir", "sweep", "-k", "SYN_CLEAN", *args, "--", "python3", "job.py",
        cwd=project,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr


RESUME_AS_IS = (
    "Resume it as journaled (`knobs triage --resume sweep`, without COMMAND or the options "
    "that differ), restore what changed, or start a new sweep without --resume.\n"
)


def test_resume_refuses_another_command_compare_mode_and_knob_list(project: Path) -> None:
    started(project)
    done = run_knobs(
        "triage", "--resume", "sweep", "-k", "SYN_RUNDIR", "-c", "regex:loss",
        "--", "python3", "job.py", "--steps", "2",
        cwd=project,
    )  # fmt: skip
    assert (done.returncode, done.stdout) == (2, "")
    assert done.stderr == (
        "knobs triage: error: cannot resume sweep: it journals another sweep:\n"
        "  command: `python3 job.py` in the journal, `python3 job.py --steps 2` now\n"
        "  compare: stdout in the journal, regex:loss now\n"
        "  knobs: SYN_CLEAN in the journal, SYN_RUNDIR now\n" + RESUME_AS_IS
    )


def test_resume_refuses_a_changed_registry(project: Path) -> None:
    started(project)
    before = (project / "registry.yaml").read_bytes()
    (project / "registry.yaml").write_text(REGISTRY.replace('"1"', '"2"', 1))
    after = (project / "registry.yaml").read_bytes()
    done = run_knobs("triage", "--resume", "sweep", cwd=project)
    import hashlib

    then, now = (hashlib.sha256(b).hexdigest()[:12] for b in (before, after))
    assert (done.returncode, done.stderr) == (
        2,
        "knobs triage: error: cannot resume sweep: it journals another sweep:\n"
        f"  registry: registry.yaml changed since the sweep started (sha256 {then} then, {now} "
        "now), so the knobs' values may differ\n" + RESUME_AS_IS,
    )


def test_resume_takes_the_journals_sweep_and_accepts_it_typed_again(project: Path) -> None:
    started(project, "--runs", "3")
    typed = run_knobs(
        "triage", "--resume", "sweep", "-k", "SYN_CLEAN", "--runs", "3",
        "--", "python3", "job.py",
        cwd=project,
    )  # fmt: skip
    assert typed.returncode == 0, typed.stderr
    assert "runs per setting: 3" in typed.stdout
    assert typed.stderr.splitlines()[-1].endswith(
        "0 runs of the command now, 6 taken from the journal."
    )


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (
            ["--resume", "nowhere"],
            "knobs triage: error: cannot resume: nowhere holds no triage journal "
            "(journal.jsonl); start a sweep there with `knobs triage --dir nowhere -- COMMAND`.\n",
        ),
        (
            ["--dir", "sweep", "--", "python3", "job.py"],
            "knobs triage: error: sweep holds the journal of a sweep already; continue it with "
            "`knobs triage --resume sweep`, or name a new folder.\n",
        ),
        (
            ["--resume", "sweep", "--dir", "other"],
            "knobs triage: error: --dir starts a sweep and --resume continues one; give one.\n",
        ),
        (
            ["--yes", "--", "python3", "job.py"],
            "knobs triage: error: --yes goes with --resume (a new sweep runs what you type); "
            "drop it.\n",
        ),
    ],
)
def test_folder_misuse_exits_2(project: Path, args: list[str], message: str) -> None:
    started(project)
    done = run_knobs("triage", *args, cwd=project)
    assert (done.returncode, done.stdout, done.stderr) == (2, "", message)


# --- the journal itself ----------------------------------------------------------------------

HEADER = Header(
    command=("python", "train.py"),
    origin="/work",
    compare="stdout",
    knobs=("A", "B"),
    profile=None,
    runs=2,
    pairs=False,
    bisect=False,
    cost=None,
    cost_higher_is_better=False,
    registry="registry.yaml",
    registry_sha256="0" * 64,
)


def test_a_torn_last_line_is_dropped_and_the_next_append_starts_a_line(tmp_path: Path) -> None:
    journal = Journal.create(tmp_path, HEADER)
    setting = Setting(Sweep.BASELINE)
    folder = tmp_path / "runs" / "001-baseline" / "run-1"
    run = Run(
        index=1,
        folder=folder,
        stdout=folder.with_suffix(".stdout"),
        stderr=folder.with_suffix(".stderr"),
        returncode=0,
    )
    journal.run_done(1, setting, run)
    journal.outcome(
        1,
        Outcome(
            setting=setting, verdict=Verdict.REPRODUCIBLE, runs=2, detail=None, samples=(1.5, None)
        ),
    )
    with (tmp_path / "journal.jsonl").open("ab") as file:
        file.write(b'{"run":{"number":2,"swe')  # SIGKILL in the middle of a line
    again = Journal.open(tmp_path)
    assert again.header == HEADER
    assert again.journaled == (1, 1)
    assert again.judged(1, setting) == Outcome(
        setting=setting, verdict=Verdict.REPRODUCIBLE, runs=2, detail=None, samples=(1.5, None)
    )
    again.outcome(
        2,
        Outcome(setting=Setting(Sweep.ALONE, ("A",)), verdict=Verdict.ERROR, runs=2, detail="boom"),
    )
    lines = (tmp_path / "journal.jsonl").read_text().splitlines()
    assert [json.loads(line).keys() for line in lines][-1] == {"outcome": 0}.keys()
    assert Journal.open(tmp_path).journaled == (2, 1)


def test_a_finished_run_is_reused_only_while_its_folder_is_kept(tmp_path: Path) -> None:
    journal = Journal.create(tmp_path, HEADER)
    setting = Setting(Sweep.ALONE, ("A",))
    folders = [journal.runs_folder / "002-A" / f"run-{i}" for i in (1, 2)]
    for folder in folders:
        folder.mkdir(parents=True)
        for suffix in (".stdout", ".stderr"):
            folder.with_suffix(suffix).write_text("")
    stdout = folders[0].with_suffix(".stdout")
    run = Run(
        index=1,
        folder=folders[0],
        stdout=stdout,
        stderr=folders[0].with_suffix(".stderr"),
        returncode=0,
        wall_s=2.5,
    )
    journal.run_done(2, setting, run)
    again = Journal.open(tmp_path)
    assert again.finished(2, setting, 1, folders[0]) == run
    assert again.finished(2, setting, 2, folders[1]) is None  # never finished: cleared for a rerun
    assert not folders[1].exists() and not folders[1].with_suffix(".stdout").exists()
    other = Setting(Sweep.ALONE, ("B",))
    with pytest.raises(JournalError, match="setting 2 is A in the journal but B now"):
        again.outcome(2, Outcome(setting=setting, verdict=Verdict.REPRODUCIBLE, runs=2))
        Journal.open(tmp_path).judged(2, other)


def test_a_damaged_journal_is_refused(tmp_path: Path) -> None:
    Journal.create(tmp_path, HEADER)
    with (tmp_path / "journal.jsonl").open("a") as file:
        file.write("not json\n{}\n")
    with pytest.raises(JournalError, match=r"journal.jsonl:2: not a JSON line; the journal is"):
        Journal.open(tmp_path)
    (tmp_path / "journal.jsonl").write_text(textwrap.dedent('{"journal": "other"}\n'))
    with pytest.raises(JournalError, match="is not a knobs triage journal"):
        Journal.open(tmp_path)


PAIR_JOB = """
import os, random
from pathlib import Path
with (Path(os.environ["KNOBS_TRIAGE_ORIGIN"]) / "runs.log").open("a") as log:
    log.write(f"{os.getpid()}\\n")
print("step 1 loss 2.5")
if os.environ.get("K1") == "1" and os.environ.get("K3") == "1":
    print("step 2 loss", random.random())  # only these two together break it
"""


def test_a_resumed_pair_sweep_and_bisection_give_the_uninterrupted_verdicts(
    tmp_path: Path,
) -> None:
    knobs = "".join(f"  K{i}:\n    default_on: true\n    triage: untriaged\n" for i in (1, 2, 3))
    write_tree(tmp_path, {"registry.yaml": "version: 1\nknobs:\n" + knobs, "job.py": PAIR_JOB})
    args = ("--pairs", "--bisect", "--", sys.executable, "job.py")
    whole = run_knobs("triage", "--dir", "whole", *args, cwd=tmp_path)
    assert whole.returncode == 1, whole.stderr
    total = len(logged(tmp_path))
    journal = (tmp_path / "whole" / "journal.jsonl").read_text().splitlines(keepends=True)
    # As if triage died after the first half of its lines: the runs of a setting not
    # judged by then are run again (their folders went with the finished sweep).
    kept = journal[: len(journal) // 2]
    (tmp_path / "cut").mkdir()
    (tmp_path / "cut" / "journal.jsonl").write_text("".join(kept))
    judged = sum(json.loads(line)["outcome"]["runs"] for line in kept if '"outcome"' in line)
    resumed = run_knobs("triage", "--resume", "cut", cwd=tmp_path)
    assert resumed.returncode == 1, resumed.stderr
    assert len(logged(tmp_path)) - total == total - judged
    # the differences themselves are random: random() prints 0.123... or, below 1e-4,
    # 9.402020655280285e-05
    random = re.compile(r"loss \d\.\d+(?:e-\d+)?")
    assert random.sub("X", resumed.stdout) == random.sub("X", whole.stdout)
    assert "Bisect: all 3 knobs that were reproducible alone, on together, break" in whole.stdout
