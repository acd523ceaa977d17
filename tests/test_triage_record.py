"""`knobs triage --record`: verdicts and evidence written into the registry, in place."""

from __future__ import annotations

import difflib
import hashlib
import os
import re
import shutil
import subprocess
import sys
from datetime import date
from pathlib import Path

import pytest

from knobregistry.registry import Sweep, Triage, TriageRecord, Verdict, load_registry
from knobregistry.triage import (
    Bisection,
    Host,
    KnobUpdate,
    Outcome,
    Setting,
    TriageResult,
    knob_updates,
    record_triage,
)
from knobregistry.triage.trace_evidence import MAX_BYTES as TRACE_MAX_BYTES
from knobregistry.triage.yaml_edit import edit_registry
from tests.conftest import REPO, run_knobs, write_tree

HAND_WRITTEN = """
# yaml-language-server: $schema=schema.json
#
# A registry written by hand: comments, quoting and key order must survive --record.

version: 1

knobs:
  # Kept first on purpose, out of alphabetical order.
  SYN_RUNDIR:
    gates: {kernel: fused writer (Triton), pass: backward}
    default: "1"
    default_on: true
    triage: reproducible   # an old verdict, measured on another machine
    cost: 'Slower: 3% per step.'
    evidence:
      hardware: MI355X
      notes: Measured by hand.

  SYN_CLEAN:
    default: "1"
    default_on: true
    triage: breaks-bitwise
    breaks: backward
    owner: kernels-team

  SYN_EXEMPT:
    default: "1"
    default_on: true
    triage: exempt
    reason: A cache of a constant table.

# Variables libraries read.
external:
  SYN_MODE:
    description: Read by job.py.
"""

JOB = """
import os
from pathlib import Path
print("step 1 loss 2.5")
if os.environ.get("SYN_RUNDIR", "1") != "0":
    print("written in", Path.cwd().name)
"""

RECORD = """\
        - date: DATE
          verdict: {verdict}
          sweep: alone
          command: [PYTHON, job.py]
          runs: 2
          compare: stdout
          host: HOST
          gpus: GPUS
          versions: VERSIONS
          versions_from: "probe: PYTHON -c '<knobs probe>' (PYTHON)"
"""

RECORDED = (
    HAND_WRITTEN.lstrip("\n")
    .replace(
        "    triage: reproducible   # an old",
        "    triage: breaks-bitwise # an old",
    )
    .replace(
        "      notes: Measured by hand.\n",
        "      notes: Measured by hand.\n      records:\n"
        + RECORD.format(verdict="breaks-bitwise")
        + "          difference: \"run 2 differs from run 1 at line 2: 'written in run-1' != "
        "'written in run-2'\"\n"
        # the code the knob gates: job.py's module-level statements hold its branch
         + "          code:\n            job.py:\n              <module>: 3644c44b54f58223\n",
    )
    .replace(
        "    triage: breaks-bitwise\n    breaks: backward\n    owner: kernels-team\n",
        "    triage: reproducible\n    owner: kernels-team\n    evidence:\n      records:\n"
        + RECORD.format(verdict="reproducible"),
    )
    .replace(
        "    reason: A cache of a constant table.\n",
        "    reason: A cache of a constant table.\n    evidence:\n      records:\n"
        + RECORD.format(verdict="reproducible"),
    )
)


KNOBS = (sys.executable, "-m", "knobregistry")
HANG_GUARD_S = 120  # a hang fails the test instead of blocking the suite; nothing is timed


def normalised(text: str) -> str:
    """The registry text without what depends on the day and the machine."""
    text = re.sub(r"date: \d{4}-\d\d-\d\d", "date: DATE", text)
    text = re.sub(r"host: .*", "host: HOST", text)
    text = re.sub(r"versions: \{.*\}", "versions: VERSIONS", text)
    text = re.sub(r"gpus: \d+", "gpus: GPUS", text)  # as many as the command sees
    text = re.sub(r" *gpu: .*\n", "", text)
    return text.replace(sys.executable, "PYTHON")


def record(project: Path) -> str:
    done = run_knobs(
        "triage", "--record", "--jobs", "2", "--", sys.executable, "job.py", cwd=project
    )
    assert done.returncode == 1, done.stderr
    return done.stdout


def test_record_keeps_comments_order_and_quoting(tmp_path: Path) -> None:
    project = write_tree(tmp_path, {"registry.yaml": HAND_WRITTEN, "job.py": JOB})
    out = record(project)
    assert out.endswith(
        "Recorded in registry.yaml:\n"
        "  SYN_CLEAN: breaks-bitwise -> reproducible; 1 record added\n"
        "  SYN_EXEMPT: exempt; 1 record added\n"  # a measurement does not lift an exemption
        "  SYN_RUNDIR: reproducible -> breaks-bitwise; 1 record added\n"
    )
    text = (project / "registry.yaml").read_text()
    assert normalised(text) == RECORDED
    registry = load_registry(project / "registry.yaml")
    rundir = registry.knobs["SYN_RUNDIR"]
    assert rundir.triage is Triage.BREAKS_BITWISE
    assert rundir.evidence is not None and rundir.evidence.hardware == "MI355X"
    (written,) = rundir.evidence.records
    assert written.date == date.today()
    assert (written.verdict, written.sweep, written.runs) == (
        Verdict.BREAKS_BITWISE,
        Sweep.ALONE,
        2,
    )
    assert written.command == (sys.executable, "job.py")
    assert written.versions["python"] == ".".join(str(v) for v in sys.version_info[:3])
    assert registry.knobs["SYN_CLEAN"].breaks is None  # `breaks` went with breaks-bitwise


@pytest.mark.slow
def test_a_second_identical_triage_changes_nothing_but_the_date(tmp_path: Path) -> None:
    project = write_tree(tmp_path, {"registry.yaml": HAND_WRITTEN, "job.py": JOB})
    record(project)
    first = (project / "registry.yaml").read_text()
    out = record(project)
    assert "  SYN_RUNDIR: breaks-bitwise; 1 record updated\n" in out
    second = (project / "registry.yaml").read_text()
    assert re.sub(r"\d{4}-\d\d-\d\d", "DATE", second) == re.sub(r"\d{4}-\d\d-\d\d", "DATE", first)


HOST = Host(
    name="node-7", gpu="AMD Instinct MI355X", versions={"python": "3.11.9", "torch": "2.13.0"}
)


def result_of(*alone: tuple[str, Verdict, str | None]) -> TriageResult:
    outcomes = tuple(
        Outcome(setting=Setting(Sweep.ALONE, (n,)), verdict=v, runs=2, detail=d)
        for n, v, d in alone
    )
    return TriageResult(
        command=("python", "train.py", "--flag", "on"),
        compare="regex:^step",
        runs=2,
        profile="bitwise",
        candidates=tuple(n for n, _, _ in alone),
        baseline=Outcome(setting=Setting(Sweep.BASELINE), verdict=Verdict.REPRODUCIBLE, runs=2),
        alone=outcomes,
    )


def test_on_another_day_only_the_dates_change(tmp_path: Path) -> None:
    project = write_tree(tmp_path, {"registry.yaml": HAND_WRITTEN})
    path = project / "registry.yaml"
    result = result_of(
        ("SYN_RUNDIR", Verdict.BREAKS_BITWISE, "run 2 differs from run 1 at line 2: 'a' != 'b'"),
        ("SYN_CLEAN", Verdict.REPRODUCIBLE, None),
    )
    record_triage(path, result, HOST, date(2026, 3, 30))
    before = path.read_text().splitlines(keepends=True)
    recorded = record_triage(path, result, HOST, date(2026, 3, 31))
    after = path.read_text().splitlines(keepends=True)
    changed = [line for line in difflib.unified_diff(before, after, n=0) if line[0] in "+-"][
        2:
    ]  # without the --- / +++ header
    assert changed == [
        "-        - date: 2026-03-30\n",
        "+        - date: 2026-03-31\n",
        "-        - date: 2026-03-30\n",
        "+        - date: 2026-03-31\n",
    ]
    assert [(e.knob, e.added, e.updated) for e in recorded.changes] == [
        ("SYN_RUNDIR", 0, 1),
        ("SYN_CLEAN", 0, 1),
    ]
    # Values YAML 1.1 would read as something else than a string are quoted.
    assert '          command: [python, train.py, --flag, "on"]\n' in after
    assert "          gpu: AMD Instinct MI355X\n" in after


def test_a_changed_verdict_updates_its_record_in_place(tmp_path: Path) -> None:
    path = write_tree(tmp_path, {"registry.yaml": HAND_WRITTEN}) / "registry.yaml"
    record_triage(
        path, result_of(("SYN_CLEAN", Verdict.REPRODUCIBLE, None)), HOST, date(2026, 1, 1)
    )
    text = path.read_text().replace(
        "          verdict: reproducible\n",
        "          verdict: reproducible  # seen twice\n",
    )
    path.write_text(text)
    again = result_of(("SYN_CLEAN", Verdict.BREAKS_BITWISE, "run 2 differs from run 1 at line 1"))
    record_triage(path, again, HOST, date(2026, 1, 2))
    registry = load_registry(path)
    entry = registry.knobs["SYN_CLEAN"]
    assert entry.triage is Triage.BREAKS_BITWISE
    assert entry.evidence is not None
    assert [(r.date, r.verdict, r.difference) for r in entry.evidence.records] == [
        (date(2026, 1, 2), Verdict.BREAKS_BITWISE, "run 2 differs from run 1 at line 1")
    ]
    assert "          verdict: breaks-bitwise # seen twice\n" in path.read_text()


def test_records_for_pairs_and_a_bisection() -> None:
    names = ("A", "B", "C")
    pair = {
        ("A", "B"): Verdict.REPRODUCIBLE,
        ("A", "C"): Verdict.BREAKS_BITWISE,
        ("B", "C"): Verdict.ERROR,
    }
    result = TriageResult(
        command=("job",),
        compare="stdout",
        runs=2,
        profile=None,
        candidates=names,
        baseline=Outcome(setting=Setting(Sweep.BASELINE), verdict=Verdict.REPRODUCIBLE, runs=2),
        alone=tuple(
            Outcome(setting=Setting(Sweep.ALONE, (n,)), verdict=Verdict.REPRODUCIBLE, runs=2)
            for n in names
        ),
        pairs=tuple(
            Outcome(
                setting=Setting(Sweep.PAIRS, k),
                verdict=v,
                runs=2,
                detail=None if v is Verdict.REPRODUCIBLE else "d",
            )
            for k, v in pair.items()
        ),
        bisection=Bisection(
            names,
            (
                Outcome(
                    setting=Setting(Sweep.BISECT, names),
                    verdict=Verdict.BREAKS_BITWISE,
                    runs=2,
                    detail="all",
                ),
                Outcome(
                    setting=Setting(Sweep.BISECT, ("A",)), verdict=Verdict.REPRODUCIBLE, runs=2
                ),
                Outcome(
                    setting=Setting(Sweep.BISECT, ("B", "C")), verdict=Verdict.REPRODUCIBLE, runs=2
                ),
                Outcome(
                    setting=Setting(Sweep.BISECT, ("A", "C")),
                    verdict=Verdict.BREAKS_BITWISE,
                    runs=2,
                    detail="ac",
                ),
            ),
            minimal=("A", "C"),
        ),
    )
    host = Host(name="h", gpu=None, versions={"python": "3.11.9"})
    summary = {
        u.name: (u.triage, [(r["sweep"], r["verdict"], r.get("combined_with")) for r in u.records])
        for u in knob_updates(result, host, date(2026, 1, 1))
    }
    assert summary == {
        "A": (
            Triage.BREAKS_BITWISE,  # breaks together with C: a bitwise profile turns it off
            [
                ("alone", "reproducible", None),
                ("pairs", "reproducible", ["B"]),
                ("pairs", "breaks-bitwise", ["C"]),
                ("bisect", "breaks-bitwise", ["C"]),
            ],
        ),
        "B": (
            Triage.REPRODUCIBLE,
            [
                ("alone", "reproducible", None),
                ("pairs", "reproducible", ["A"]),
                ("pairs", "error", ["C"]),
            ],
        ),
        "C": (
            Triage.BREAKS_BITWISE,
            [
                ("alone", "reproducible", None),
                ("pairs", "breaks-bitwise", ["A"]),
                ("pairs", "error", ["B"]),
                ("bisect", "breaks-bitwise", ["A"]),
            ],
        ),
    }
    (update,) = [u for u in knob_updates(result, host, date(2026, 1, 1)) if u.name == "A"]
    assert update.records[3] == {
        "date": date(2026, 1, 1),
        "verdict": "breaks-bitwise",
        "sweep": "bisect",
        "combined_with": ["C"],
        "command": ["job"],
        "runs": 2,
        "compare": "stdout",
        "host": "h",
        "versions": {"python": "3.11.9"},
        "difference": "ac",
    }


def test_nothing_is_recorded_for_an_error_but_the_record_itself(tmp_path: Path) -> None:
    result = result_of(("SYN_CLEAN", Verdict.ERROR, "run 1 exited with status 3; the end:\n  x"))
    (update,) = knob_updates(result, HOST, date(2026, 1, 1))
    assert update.triage is None  # an error is never a verdict on determinism
    assert update.records[0]["notes"] == "run 1 exited with status 3; the end:"


def test_a_knob_gone_from_the_file_is_reported_not_written(tmp_path: Path) -> None:
    path = write_tree(tmp_path, {"registry.yaml": HAND_WRITTEN}) / "registry.yaml"
    update = KnobUpdate(
        name="SYN_GONE", triage=Triage.REPRODUCIBLE, records=({"date": date(2026, 1, 1)},)
    )
    (edit,) = edit_registry(path, [update])
    assert edit.missing
    assert path.read_text() == HAND_WRITTEN.lstrip("\n")


def test_the_repository_registry_keeps_every_line(tmp_path: Path) -> None:
    path = tmp_path / "registry.yaml"
    shutil.copy(REPO / "registry.yaml", path)
    original = path.read_text().splitlines(keepends=True)
    result = result_of(("PRIMUS_HC_TRITON", Verdict.BREAKS_BITWISE, "run 2 differs"))
    record_triage(path, result, HOST, date(2026, 4, 1))
    edited = path.read_text().splitlines(keepends=True)
    removed = [line for line in difflib.ndiff(original, edited) if line.startswith("- ")]
    added = [line[2:] for line in difflib.ndiff(original, edited) if line.startswith("+ ")]
    assert removed == []
    assert added[0] == "      records:\n"
    assert len(added) == 12
    entry = load_registry(path).knobs["PRIMUS_HC_TRITON"]
    assert entry.evidence is not None
    assert entry.evidence.records == (
        TriageRecord(
            date=date(2026, 4, 1),
            verdict=Verdict.BREAKS_BITWISE,
            command=("python", "train.py", "--flag", "on"),
            runs=2,
            compare="regex:^step",
            sweep=Sweep.ALONE,
            profile="bitwise",
            host="node-7",
            gpu="AMD Instinct MI355X",
            versions={"python": "3.11.9", "torch": "2.13.0"},
            difference="run 2 differs",
        ),
    )


def test_a_registry_that_cannot_be_written_keeps_the_results_on_screen(tmp_path: Path) -> None:
    # The job breaks the registry while triage runs (as a colleague's bad edit would).
    vandal = 'import sys\nopen(sys.argv[1], "w").write("version: [\\n")\nprint("done")\n'
    project = write_tree(tmp_path, {"registry.yaml": HAND_WRITTEN, "vandal.py": vandal})
    done = run_knobs(
        "triage", "-k", "SYN_CLEAN", "--record", "--", sys.executable, "vandal.py", "registry.yaml",
        cwd=project,
    )  # fmt: skip
    assert done.returncode == 2
    assert "alone      SYN_CLEAN   reproducible      2\n" in done.stdout
    assert done.stderr.splitlines()[-1] == (
        "knobs triage: error: registry.yaml: cannot read the registry to record: invalid YAML "
        "at line 2, column 1: expected the node content, but found '<stream end>'."
    )
    assert (project / "registry.yaml").read_text() == "version: [\n"  # nothing written


def test_a_trace_of_a_run_is_cited_in_each_record(tmp_path: Path) -> None:
    project = write_tree(tmp_path, {"registry.yaml": HAND_WRITTEN, "job.py": JOB})
    traced = run_knobs("trace", "--out", "trace.json", "--", sys.executable, "job.py", cwd=project)
    assert traced.returncode == 0, traced.stderr
    digest = hashlib.sha256((project / "trace.json").read_bytes()).hexdigest()
    done = run_knobs(
        *("triage", "-k", "SYN_RUNDIR", "-k", "SYN_CLEAN", "--record", "--trace", "trace.json"),
        *("--", sys.executable, "job.py"),
        cwd=project,
    )
    assert done.returncode == 1, done.stderr
    knobs = load_registry(project / "registry.yaml").knobs
    cited = {}
    for name in ("SYN_RUNDIR", "SYN_CLEAN"):
        evidence = knobs[name].evidence
        assert evidence is not None
        cited[name] = dict(evidence.records[-1].trace)
    assert cited == {
        "SYN_RUNDIR": {
            "file": "trace.json",
            "sha256": digest,
            "read": {"level": "python", "value": None, "count": 1},
        },
        "SYN_CLEAN": {"file": "trace.json", "sha256": digest},  # job.py never reads it
    }


def test_trace_needs_record_and_a_trace_file(tmp_path: Path) -> None:
    project = write_tree(
        tmp_path, {"registry.yaml": HAND_WRITTEN, "job.py": JOB, "not-a-trace.json": "[]"}
    )
    alone = run_knobs("triage", "--trace", "t.json", "--", sys.executable, "job.py", cwd=project)
    assert (alone.returncode, alone.stderr.splitlines()[-1]) == (
        2,
        "knobs triage: error: --trace cites a trace in the records --record writes; add --record.",
    )
    wrong = run_knobs(
        "triage",
        "--record",
        "--trace",
        "not-a-trace.json",
        "--",
        sys.executable,
        "job.py",
        cwd=project,
    )
    assert (wrong.returncode, wrong.stderr.splitlines()[-1]) == (
        2,
        "knobs triage: error: not-a-trace.json holds no `reads` list of a trace; write one with "
        "`knobs trace --out not-a-trace.json -- COMMAND`.",
    )


@pytest.mark.parametrize(
    ("trace", "reason"),
    [
        ("/dev/zero", "it is a device, not a regular file"),  # read whole: a MemoryError
        ("fifo", "it is a named pipe, not a regular file"),  # opened: waits for a writer
        ("huge.json", f"it is larger than {TRACE_MAX_BYTES} bytes"),
    ],
)
def test_a_trace_that_is_no_regular_file_is_refused_before_any_run(
    tmp_path: Path, trace: str, reason: str
) -> None:
    project = write_tree(tmp_path, {"registry.yaml": HAND_WRITTEN, "job.py": JOB})
    os.mkfifo(project / "fifo")
    with (project / "huge.json").open("wb") as file:
        file.truncate(TRACE_MAX_BYTES + 1)  # sparse: nothing is written
    done = subprocess.run(
        [*KNOBS, "triage", "-k", "SYN_CLEAN", "--record", "--trace", trace, "--", "true"],
        cwd=project,
        capture_output=True,
        text=True,
        timeout=HANG_GUARD_S,
        check=False,
    )
    assert (done.returncode, done.stdout, done.stderr) == (
        2,
        "",
        f"knobs triage: error: cannot read {trace}: {reason}.\n",
    )
    assert (project / "registry.yaml").read_text() == HAND_WRITTEN.lstrip("\n")
