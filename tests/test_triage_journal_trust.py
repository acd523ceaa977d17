"""The journal as untrusted input, in process: every field of every line checked to the
command line's limits (golden messages, and a property: any JSON in any field is a
JournalError or an exactly typed journal, never another exception); the seal of the
command; what a resume stops (leftovers) and what triage removes (owned)."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from knobregistry._io import procfs
from knobregistry.registry import Sweep, Verdict
from knobregistry.triage import Outcome, Run, Setting, owned, seal
from knobregistry.triage.journal import Header, Journal, JournalError, Trust
from knobregistry.triage.leftovers import Started, stop

HEADER = Header(
    command=("python", "train.py"),
    origin="/work",
    compare="stdout",
    knobs=("A", "B"),
    profile=None,
    runs=2,
    pairs=False,
    bisect=False,
    cost="wall",
    cost_higher_is_better=False,
    registry="registry.yaml",
    registry_sha256="0" * 64,
)
DAMAGED = "; the journal is damaged or was edited: start a new sweep."


def journal_text(folder: Path) -> list[dict[str, Any]]:
    """A journal of every kind of line: a run started, a run finished, a judged setting."""
    journal = Journal.create(folder, HEADER)
    setting = Setting(Sweep.ALONE, ("A",))
    run = Run(index=1, folder=folder, stdout=folder, stderr=folder, returncode=0, wall_s=1.5)
    process = subprocess.Popen(["true"], start_new_session=True)  # a run's leader, as a run's is
    os.waitid(os.P_PID, process.pid, os.WEXITED | os.WNOWAIT)  # ended, not reaped: still there
    journal.started(2, 1, process.pid)
    process.wait()
    journal.run_done(2, setting, run)
    outcome = Outcome(
        setting=setting, verdict=Verdict.REPRODUCIBLE, runs=2, detail=None, samples=(1.5, None)
    )
    journal.outcome(2, outcome)
    lines = (folder / "journal.jsonl").read_text().splitlines()
    return [json.loads(line) for line in lines]


def write(folder: Path, records: list[Any]) -> None:
    text = "".join(json.dumps(r) + "\n" for r in records)
    (folder / "journal.jsonl").write_text(text)


def test_a_journal_of_every_line_reads_back(tmp_path: Path) -> None:
    records = journal_text(tmp_path)
    assert [next(iter(r)) for r in records[1:]] == ["started", "run", "outcome"]
    journal = Journal.open(tmp_path)
    assert journal.header == HEADER
    assert journal.journaled == (1, 1)
    assert journal.trust() is Trust.SEALED
    assert journal.leftovers() == []  # the run that started finished
    write(tmp_path, records[:2])
    (leftover,) = Journal.open(tmp_path).leftovers()  # started, never finished
    assert journal.sealed(leftover)
    assert not journal.sealed(replace(leftover, start=leftover.start + 1))


KNOB_NAME = "a knob is a variable name: letters, digits and underscores, not starting with a digit"
SWEEPS = '"baseline", "alone", "pairs", "bisect" or "search"'


@pytest.mark.parametrize(
    ("line", "field", "value", "problem"),
    [
        (1, "runs", 1, "runs: must be at least 2, got 1"),
        (1, "runs", "2", 'runs: expected an integer, got "2"'),
        (1, "runs", 2.0, "runs: expected an integer, got 2.0"),
        (1, "runs", True, "runs: expected an integer, got true"),
        (1, "knobs", ["A", 1], "knobs[1]: expected a string, got 1"),
        (1, "knobs", ["A", "$(rm -rf ~)"], f'knobs[1]: {KNOB_NAME}, got "$(rm -rf ~)"'),
        (1, "command", [], "command: must not be empty"),
        (1, "command", ["a\x00b"], "command[0]: an argument holds no NUL character, got "
         '"a\\u0000b"'),
        (1, "command", ["\ud800"], "command[0]: not an argument this system can pass (a lone "
         "surrogate)"),
        (1, "cost", "regex:(", "cost: --cost 'regex:(': not a regular expression: missing ), "
         "unterminated subpattern at position 0."),
        (1, "cost_higher_is_better", True, "cost: --cost-higher-is-better: wall time is better "
         "lower; drop it."),
        (1, "search", "fastest", 'search: expected null or "fastest-bitwise", got "fastest"'),
        (1, "runs_folder", "..", "runs_folder: the runs' folder is named knobs-runs- and 16 hex "
         'digits, got ".."'),
        (1, "seal", {"key": "0" * 16}, "seal.mac: missing"),
        (1, "origin", "work", "origin: the folder triage was started from is an absolute path, "
         'got "work"'),
        (1, "extra", 1, "extra: not a field of this line"),
        (2, "pid", 1, "started.pid: must be at least 2, got 1"),
        (2, "group", 7, "started.group: a run leads its own group, {pid}; got 7"),
        (2, "index", 3, "started.index: must be at most 2, the sweep's runs, got 3"),
        (3, "wall_s", float("nan"), "run.wall_s: expected a finite number, got NaN"),
        (3, "wall_s", -1, "run.wall_s: must be at least 0, got -1"),
        (3, "returncode", 1.5, "run.returncode: expected null or an integer, got 1.5"),
        (3, "knobs", ["C"], "run.knobs: C is not a candidate of the sweep"),
        (3, "sweep", "sideways", f'run.sweep: expected {SWEEPS}, got "sideways"'),
        (4, "runs", 3, "outcome.runs: the sweep runs each setting 2 times, got 3"),
        (4, "samples", [1.0], "outcome.samples: one per run (2) or none, got 1"),
        (4, "samples", [1.0, float("inf")], "outcome.samples[1]: expected null or a finite "
         "number, got Infinity"),
        (4, "verdict", "fine", 'outcome.verdict: expected "reproducible", "breaks-bitwise" or '
         '"error", got "fine"'),
    ],
)  # fmt: skip
def test_a_field_out_of_bounds_is_named_with_its_line(
    tmp_path: Path, line: int, field: str, value: object, problem: str
) -> None:
    records = journal_text(tmp_path)
    record = records[0] if line == 1 else next(iter(records[line - 1].values()))
    record[field] = value
    write(tmp_path, records)
    pid = records[1]["started"]["pid"]
    expected = f"{tmp_path}/journal.jsonl:{line}: {problem.format(pid=pid)}{DAMAGED}"
    with pytest.raises(JournalError) as raised:
        Journal.open(tmp_path)
    assert str(raised.value) == expected


@pytest.mark.parametrize(
    ("text", "problem"),
    [
        ('{"run": 1, "outcome": 2}', "not a line of a triage journal (an object of one key: "
         "started, run, outcome)"),
        ("[1, 2]", "not a line of a triage journal (an object of one key: started, run, outcome)"),
        ('{"started": {}}', "started.number: missing"),
        ('{"run": {"number": 1e999}}', "run.sweep: missing"),
    ],
)  # fmt: skip
def test_a_line_of_no_known_kind_is_named(tmp_path: Path, text: str, problem: str) -> None:
    journal_text(tmp_path)
    with (tmp_path / "journal.jsonl").open("a") as file:
        file.write(text + "\n")
    with pytest.raises(JournalError) as raised:
        Journal.open(tmp_path)
    assert str(raised.value) == f"{tmp_path}/journal.jsonl:5: {problem}{DAMAGED}"


def test_an_older_format_and_a_huge_file_are_refused(tmp_path: Path) -> None:
    records = journal_text(tmp_path)
    records[0]["format"] = 1
    write(tmp_path, records)
    with pytest.raises(JournalError) as raised:
        Journal.open(tmp_path)
    assert str(raised.value) == (
        f"{tmp_path}/journal.jsonl is a journal of format 1; this knobs reads format 2: finish "
        "it with the knobs that started it."
    )
    with (tmp_path / "journal.jsonl").open("r+b") as file:
        file.truncate(64 * 1024 * 1024 + 1)  # sparse: nothing is written
    with pytest.raises(JournalError) as raised:
        Journal.open(tmp_path)
    assert str(raised.value) == (
        f"cannot read {tmp_path}/journal.jsonl: it is larger than 67108864 bytes."
    )


JSON = st.recursive(
    st.none()
    | st.booleans()
    | st.integers(-(2**70), 2**70)
    | st.floats()
    | st.text(max_size=8),
    lambda inner: st.lists(inner, max_size=3)
    | st.dictionaries(st.text(max_size=6), inner, max_size=3),
    max_leaves=6,
)  # fmt: skip


@settings(
    max_examples=300,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)
@given(line=st.integers(0, 3), choice=st.integers(0, 100), value=JSON, drop=st.booleans())
def test_any_json_in_any_field_is_refused_or_read_exactly(
    tmp_path_factory: pytest.TempPathFactory, line: int, choice: int, value: object, drop: bool
) -> None:
    folder = tmp_path_factory.mktemp("journal")
    records = journal_text(folder)
    record = records[0] if line == 0 else next(iter(records[line].values()))
    field = sorted(record)[choice % len(record)]
    if drop:
        del record[field]
    else:
        record[field] = value
    (folder / "journal.jsonl").write_text("".join(json.dumps(r) + "\n" for r in records))
    try:
        journal = Journal.open(folder)
    except JournalError as exc:
        assert "\n" not in str(exc)
        return
    header = journal.header
    assert all(type(a) is str for a in header.command) and header.command
    assert type(header.runs) is int and header.runs >= 2
    assert all(type(k) is str and k.isidentifier() for k in header.knobs)
    assert type(header.pairs) is bool and type(header.bisect) is bool
    assert journal.runs_folder.parent == folder and journal.runs_name.startswith("knobs-runs-")


# --- the seal ------------------------------------------------------------------------------


def test_an_edited_command_or_origin_breaks_the_seal_and_another_key_cannot_tell(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    records = journal_text(tmp_path)
    for field, value in [("command", ["python", "evil.py"]), ("origin", "/elsewhere")]:
        edited = [{**records[0], field: value}, *records[1:]]
        write(tmp_path, edited)
        assert Journal.open(tmp_path).trust() is Trust.CHANGED
    write(tmp_path, records)
    assert Journal.open(tmp_path).trust() is Trust.SEALED
    monkeypatch.setenv("KNOBS_CACHE_DIR", str(tmp_path / "another-cache"))
    assert Journal.open(tmp_path).trust() is Trust.UNVERIFIABLE


def test_the_key_is_private_and_one_readable_by_others_is_not_trusted(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("KNOBS_CACHE_DIR", str(tmp_path / "cache"))
    key = seal.user_key(create=True)
    assert key is not None and len(key) == seal.KEY_BYTES
    path = tmp_path / "cache" / "triage.key"
    assert path.stat().st_mode & 0o777 == 0o600
    assert seal.user_key(create=True) == key  # made once
    path.chmod(0o644)
    assert seal.user_key() is None
    path.chmod(0o600)
    path.write_bytes(b"short")
    assert seal.user_key() is None


# --- what a resume stops -------------------------------------------------------------------


def leader(started: list[subprocess.Popen[bytes]]) -> tuple[subprocess.Popen[bytes], Started]:
    """A process group of its own, as a run is, and its record as the journal keeps it."""
    process = subprocess.Popen(["sleep", "300"], start_new_session=True)
    started.append(process)
    start, boot = procfs.start_time(process.pid), procfs.boot_id()
    assert start is not None and boot is not None
    record = Started(
        number=1, index=1, pid=process.pid, start=start, group=process.pid, boot=boot, mac=None
    )
    return process, record


def test_only_a_sealed_record_of_a_live_leader_is_stopped(
    stopped_at_end: list[subprocess.Popen[bytes]],
) -> None:
    own, own_record = leader(stopped_at_end)
    reused, reused_record = leader(stopped_at_end)
    unsealed, unsealed_record = leader(stopped_at_end)
    rebooted, rebooted_record = leader(stopped_at_end)
    records = [
        own_record,
        replace(reused_record, start=reused_record.start + 1),  # a pid given to another
        unsealed_record,
        replace(rebooted_record, boot="another-boot"),
    ]
    found = stop(records, lambda run: run is not unsealed_record, grace_s=5.0)
    assert (found.stopped, found.unverified) == ((own.pid,), (unsealed.pid,))
    assert own.wait(timeout=10) == -signal.SIGTERM
    assert [p.poll() for p in (reused, unsealed, rebooted)] == [None, None, None]


def test_the_group_of_triage_and_of_its_parent_are_never_stopped(
    stopped_at_end: list[subprocess.Popen[bytes]],
) -> None:
    boot = procfs.boot_id()
    assert boot is not None
    records = []
    for pid in (os.getpid(), os.getppid()):
        start = procfs.start_time(pid)
        assert start is not None
        group = os.getpgid(pid)
        records.append(
            Started(number=1, index=1, pid=pid, start=start, group=group, boot=boot, mac=None)
        )
    assert stop(records, lambda run: True, grace_s=0.0).stopped == ()


# --- what triage removes -------------------------------------------------------------------


def test_removal_stays_in_the_runs_folder_and_follows_no_link(tmp_path: Path) -> None:
    mine = tmp_path / "mine"
    (mine / "keep").mkdir(parents=True)
    (mine / "keep" / "file").write_text("mine\n")
    root = tmp_path / "knobs-runs-0123456789abcdef"
    (root / "001-A" / "run-1").mkdir(parents=True)
    (root / "001-A" / "run-1" / "link").symlink_to(mine / "keep")
    (root / "002-B").symlink_to(mine)  # a link where a setting's folder was
    owned.remove(root, root / "002-B" / "keep")  # through a link: left alone
    owned.remove(root, mine / "keep")  # outside the runs folder: left alone
    owned.remove(root, root / ".." / "mine" / "keep")
    owned.remove(root, root / "001-A")  # the link inside goes, not what it names
    assert (mine / "keep" / "file").read_text() == "mine\n"
    assert not (root / "001-A").exists()
    owned.remove(root, root / "002-B")  # the link itself goes
    assert not (root / "002-B").is_symlink() and (mine / "keep" / "file").exists()
    linked = tmp_path / "knobs-runs-fedcba9876543210"
    linked.symlink_to(mine)  # the runs folder itself replaced by a link
    owned.remove(linked, linked)
    owned.remove(linked, linked / "keep")
    assert (mine / "keep" / "file").read_text() == "mine\n"


def test_a_runs_folder_replaced_by_a_link_is_refused_on_resume(tmp_path: Path) -> None:
    journal = Journal.create(tmp_path / "sweep", HEADER)
    journal.runs_folder.rmdir()
    journal.runs_folder.symlink_to(tmp_path)
    with pytest.raises(JournalError) as raised:
        Journal.open(tmp_path / "sweep").prepare()
    assert str(raised.value) == (
        f"{journal.runs_folder} is not the folder of runs triage made (a link or a file took "
        "its place); remove it, then resume."
    )


def test_the_runs_folder_is_journaled_before_it_is_made(tmp_path: Path) -> None:
    journal = Journal.create(tmp_path, HEADER)
    header = json.loads((tmp_path / "journal.jsonl").read_text().splitlines()[0])
    assert header["runs_folder"] == journal.runs_name
    assert sorted(p.name for p in tmp_path.iterdir()) == ["journal.jsonl", journal.runs_name]
    journal.remove_runs()
    assert [p.name for p in tmp_path.iterdir()] == ["journal.jsonl"]
    Journal.open(tmp_path).prepare()  # a finished sweep, resumed: made again, its name kept
    assert (tmp_path / journal.runs_name).is_dir()


def test_a_run_of_python_journals_its_leader(tmp_path: Path) -> None:
    from knobregistry.triage import Runner

    journal = Journal.create(tmp_path, HEADER)
    runner = Runner((sys.executable, "-c", "print(1)"), tmp_path, journal.runs_folder)
    pids: list[int] = []

    def started(pid: int) -> None:
        pids.append(pid)
        journal.started(1, 1, pid)

    run = runner.run(journal.runs_folder / "001-baseline" / "run-1", 1, os.environ, started)
    assert run.returncode == 0
    (record,) = Journal.open(tmp_path).leftovers()  # started, and no end journaled
    assert (record.pid, record.group) == (pids[0], pids[0])


def test_a_run_the_journal_could_not_record_is_stopped(tmp_path: Path) -> None:
    from knobregistry.triage import Runner

    runner = Runner(("sleep", "300"), tmp_path, tmp_path / "knobs-runs-0123456789abcdef")
    pids: list[int] = []

    def unwritable(pid: int) -> None:
        pids.append(pid)
        raise JournalError("cannot write sweep/journal.jsonl: No space left on device.")

    with pytest.raises(JournalError):
        runner.run(runner.root / "001-baseline" / "run-1", 1, os.environ, unwritable)
    assert not procfs.alive(pids[0])
