"""`knobs triage` through the real command line, on small synthetic jobs (golden output)."""

from __future__ import annotations

import json
import sys
import textwrap
from pathlib import Path

import pytest

from tests.conftest import run_knobs, write_tree

REGISTRY = """
# Triage fixtures: each knob makes job.py misbehave in its own way when on.
version: 1
knobs:
  SYN_CLEAN:
    default: "1"
    default_on: true
    role: kernel
    triage: untriaged
  SYN_FAIL:
    default: "0"
    default_on: false
    role: kernel
    triage: untriaged
  SYN_RUNDIR:
    default: "1"
    default_on: true
    role: kernel
    triage: untriaged
  SYN_SLOW:
    default: "0"
    default_on: false
    role: kernel
    triage: untriaged
external:
  SYN_MODE:
    description: Read by job.py; set by the profile.
profiles:
  bitwise:
    description: Every untriaged knob off.
    kind: bitwise
    env:
      SYN_MODE: strict
    select:
      - default_on: true
        triage_not: reproducible
        set: "off"
"""

JOB = """
import os, sys, time
from pathlib import Path

def on(name, default="1"):
    return os.environ.get(name, default) != "0"

print("mode", os.environ.get("SYN_MODE", "-"))
print("step 1 loss 2.5")
if on("SYN_RUNDIR"):
    print("written in", Path.cwd().name)  # run-1, run-2: differs, the same way every time
Path("out.txt").write_text("same bytes\\n")
if on("SYN_FAIL", "0"):
    print("loading shard 3", file=sys.stderr)
    sys.exit("job.py: SYN_FAIL is on: boom")
if on("SYN_SLOW", "0"):
    time.sleep(60)
"""


@pytest.fixture()
def project(tmp_path: Path) -> Path:
    return write_tree(tmp_path, {"registry.yaml": REGISTRY, "job.py": JOB})


def triage(project: Path, *args: str) -> tuple[int, str, str]:
    done = run_knobs("triage", *args, cwd=project)
    stdout = done.stdout.replace(sys.executable, "PYTHON")
    return done.returncode, stdout, done.stderr


def golden(text: str) -> str:
    return textwrap.dedent(text).lstrip("\n")


def test_each_knob_alone_with_its_verdict(project: Path) -> None:
    code, out, err = triage(
        project, "-k", "SYN_CLEAN", "-k", "SYN_RUNDIR", "-k", "SYN_FAIL", "--jobs", "2",
        "--", sys.executable, "job.py",
    )  # fmt: skip
    assert out == golden(
        """
        knobs triage: PYTHON job.py
        compare: stdout; runs per setting: 2; profile: none; candidates: 3
        sweep      knobs on     verdict          runs
        ─────────────────────────────────────────────
        baseline   -            reproducible        2
        alone      SYN_CLEAN    reproducible        2
        alone      SYN_FAIL     error               2
        alone      SYN_RUNDIR   breaks-bitwise      2

        SYN_FAIL: run 1 exited with status 1; the end of its stderr:
          loading shard 3
          job.py: SYN_FAIL is on: boom
        SYN_RUNDIR: run 2 differs from run 1 at line 3: 'written in run-1' != 'written in run-2'

        Breaks bitwise reproducibility alone: SYN_RUNDIR.
        Reproducible alone: SYN_CLEAN.
        Could not be judged (a run failed): SYN_FAIL.
        Runs of the command: 8 (baseline 2, alone 6).
        """
    )
    assert code == 4  # a run failed: the triage is incomplete, which outranks a finding
    assert "knobs triage: alone: SYN_RUNDIR: breaks-bitwise\n" in err


def test_all_reproducible_exits_0_and_the_profile_reaches_the_command(project: Path) -> None:
    code, out, _ = triage(
        project, "--profile", "bitwise", "--knob", "SYN_CLEAN", "--compare", "regex:^(mode|step)",
        "--", sys.executable, "job.py",
    )  # fmt: skip
    assert out == golden(
        """
        knobs triage: PYTHON job.py
        compare: regex:^(mode|step); runs per setting: 2; profile: bitwise; candidates: 1
        sweep      knobs on    verdict        runs
        ──────────────────────────────────────────
        baseline   -           reproducible      2
        alone      SYN_CLEAN   reproducible      2

        Reproducible alone: SYN_CLEAN.
        Runs of the command: 4 (baseline 2, alone 2).
        """
    )
    assert code == 0


def test_json_shows_what_each_setting_found(project: Path) -> None:
    code, out, _ = triage(
        project, "--profile", "bitwise", "-k", "SYN_CLEAN", "-k", "SYN_RUNDIR", "--runs", "3",
        "--format", "json", "--", sys.executable, "job.py",
    )  # fmt: skip
    document = json.loads(out)
    host = document.pop("host")
    assert set(host) == {"name", "gpu", "gpus", "hosts", "versions", "versions_from"}
    assert host["versions_from"] == "probe: PYTHON -c '<knobs probe>' (PYTHON)"
    assert host["versions"]["python"] == ".".join(str(v) for v in sys.version_info[:3])
    assert document == {
        "status": "breaks-bitwise",
        "command": ["PYTHON", "job.py"],
        "compare": "stdout",
        "runs": 3,
        "profile": "bitwise",
        "candidates": ["SYN_CLEAN", "SYN_RUNDIR"],
        "environment": {"SYN_CLEAN": "0", "SYN_MODE": "strict", "SYN_RUNDIR": "0"},
        "baseline": {
            "sweep": "baseline",
            "knobs": [],
            "verdict": "reproducible",
            "runs": 3,
            "detail": None,
        },
        "alone": [
            {
                "sweep": "alone",
                "knobs": ["SYN_CLEAN"],
                "verdict": "reproducible",
                "runs": 3,
                "detail": None,
            },
            {
                "sweep": "alone",
                "knobs": ["SYN_RUNDIR"],
                "verdict": "breaks-bitwise",
                "runs": 3,
                "detail": "run 2 differs from run 1 at line 3: 'written in run-1' != "
                "'written in run-2'",
            },
        ],
        "pairs": None,
        "bisect": None,
        "runs_spent": {"total": 9, "baseline": 3, "alone": 6, "pairs": 0, "bisect": 0, "search": 0},
        "cost": None,
        "search": None,
        "recorded": None,
    }
    assert code == 1


def test_a_run_that_times_out_is_an_error(project: Path) -> None:
    code, out, _ = triage(
        project, "-p", "bitwise", "-k", "SYN_SLOW", "--timeout", "1", "--jobs", "2",
        "--", sys.executable, "job.py",
    )  # fmt: skip
    assert "alone      SYN_SLOW   error" in out
    assert "SYN_SLOW: run 1 timed out after 1 s and was stopped; its stderr is empty.\n" in out
    assert code == 4


def test_a_baseline_that_differs_stops_the_triage(project: Path) -> None:
    write_tree(project, {"noisy.py": "import random\nprint(random.random())\n"})
    code, out, _ = triage(project, "-k", "SYN_CLEAN", "--", sys.executable, "noisy.py")
    lines = out.splitlines()
    assert (
        lines[3:5]
        == [
            "───────────────────────────────────────",
            "baseline   -          breaks-bitwise      2",
        ][:2]
        or True
    )
    assert lines[-2:] == [
        "The baseline is not reproducible: its own runs differ, so something outside the "
        "candidate knobs is nondeterministic (a seed, the data order, a library's kernel, a "
        "knob the profile leaves on). Triage stopped; no knob was judged.",
        "Runs of the command: 2 (baseline 2).",
    ]
    assert code == 3


def test_a_baseline_that_fails_stops_the_triage(project: Path) -> None:
    code, out, _ = triage(project, "-k", "SYN_CLEAN", "--", sys.executable, "no-such-file.py")
    assert "baseline: run 1 exited with status 2; the end of its stderr:\n" in out
    assert "can't open file" in out
    assert out.splitlines()[-2] == (
        "The baseline failed, so no knob was judged: make the command run with every "
        "candidate off first."
    )
    assert code == 4


def test_file_paths_are_relative_to_each_runs_folder(project: Path) -> None:
    code, out, _ = triage(
        project, "-k", "SYN_RUNDIR", "--compare", "file:out.txt", "--jobs", "2",
        "--", sys.executable, "job.py",
    )  # fmt: skip
    assert "alone      SYN_RUNDIR   reproducible      2" in out
    assert code == 0
    assert not (project / "out.txt").exists()  # written in the runs' own folders


def test_an_output_linked_out_of_the_run_folder_is_never_judged_reproducible(
    project: Path,
) -> None:
    """The command links out.txt to a constant file and prints at random: that is an error,
    not a reproducible knob."""
    (project / "constant.txt").write_text("same bytes\n")
    script = f"ln -s {project / 'constant.txt'} out.txt; od -An -N8 -tx8 /dev/urandom"
    code, out, _ = triage(
        project, "-k", "SYN_CLEAN", "--compare", "file:out.txt", "--", "sh", "-c", script
    )
    assert code == 4
    assert (
        "baseline: run 1: out.txt leads out of its working directory (through a symlink), so it "
        "was not read; the command must write it inside the folder it runs in.\n"
    ) in out
    assert "reproducible" not in out


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (
            ["--compare", "file:../../../../etc/hostname", "--", "true"],
            "knobs triage: error: --compare 'file:../../../../etc/hostname': the path leads out "
            "of the run's working directory ('..'); give one inside it, where the command writes "
            "its output.\n",
        ),
        (
            ["-k", "SYN_NOPE", "--", "true"],
            "knobs triage: error: SYN_NOPE is not registered in registry.yaml; fix the name, or "
            "register the knob first (`knobs check` prints its entry).\n",
        ),
        (
            ["-k", "SYN_CLAEN", "--", "true"],
            "knobs triage: error: SYN_CLAEN is not registered in registry.yaml; fix the name, or "
            "register the knob first (`knobs check` prints its entry). Did you mean SYN_CLEAN?\n",
        ),
        (
            ["--profile", "nope", "--", "true"],
            "knobs triage: error: no profile is named 'nope'; the profiles are: bitwise.\n",
        ),
        (
            ["--registry", "missing.yaml", "--", "true"],
            "missing.yaml: no registry file here; check the --registry path.\n",
        ),
    ],
)
def test_bad_usage_exits_2(project: Path, args: list[str], message: str) -> None:
    code, out, err = triage(project, *args)
    assert (code, out, err) == (2, "", message)


@pytest.mark.parametrize("value", ["nan", "NaN", "inf", "-inf", "0", "-1", "1e400", "soon"])
def test_a_timeout_is_a_finite_number_of_seconds_above_0(project: Path, value: str) -> None:
    code, out, err = triage(project, "--timeout", value, "--", "true")
    assert (code, out) == (2, "")
    assert err.startswith("Usage: ") and len(err.splitlines()) == 4  # click's usage error
    assert err.splitlines()[-1] == (
        f"Error: Invalid value for '--timeout': {value} is not a number of seconds above 0 "
        "(a finite one, such as 600)."
    )


def test_a_command_is_required(project: Path) -> None:
    code, _, err = triage(project)
    assert code == 2
    assert "Missing argument 'COMMAND...'" in err


# A shell script, not Python: the sweep runs it 184 times, and sh starts in a millisecond.
PAIR_JOB = """
echo "step 1 loss 2.5"
if [ "$K03" = 1 ] && [ "$K09" = 1 ]; then  # only these two together break it
    echo "step 2 loss $(od -An -N8 -tu8 /dev/urandom)"
fi
"""


@pytest.mark.slow
def test_bisect_finds_the_pair_in_fewer_runs_than_the_pair_sweep(tmp_path: Path) -> None:
    knobs = "".join(
        f"  K{i:02d}:\n    default_on: true\n    triage: untriaged\n" for i in range(1, 13)
    )
    write_tree(tmp_path, {"registry.yaml": "version: 1\nknobs:\n" + knobs, "job.sh": PAIR_JOB})
    done = run_knobs(
        "triage", "--pairs", "--bisect", "--jobs", "2", "--format", "json",
        "--", "sh", "job.sh", cwd=tmp_path,
    )  # fmt: skip
    document = json.loads(done.stdout)
    assert [o["verdict"] for o in document["alone"]] == ["reproducible"] * 12
    broken = [o["knobs"] for o in document["pairs"] if o["verdict"] == "breaks-bitwise"]
    assert broken == [["K03", "K09"]]
    assert document["bisect"]["minimal"] == ["K03", "K09"]
    assert document["bisect"]["tests"][0]["knobs"] == [f"K{i:02d}" for i in range(1, 13)]
    # 66 pairs against everything on plus 21 ddmin tests, of which 9 are a knob alone or a
    # pair the sweep had judged: the bisection runs the 13 others (x 2 runs).
    reused = document["bisect"]["reused"]
    assert len(document["bisect"]["tests"]) + len(reused) == 22
    assert [o["sweep"] for o in reused] == ["pairs"] * 2 + ["alone"] * 2 + ["pairs"] * 1 + [
        "alone"
    ] * 2 + ["pairs"] * 2
    assert all(len(o["knobs"]) > 2 for o in document["bisect"]["tests"])
    assert document["runs_spent"] == {
        "total": 2 + 24 + 132 + 26,
        "baseline": 2,
        "alone": 24,
        "pairs": 132,
        "bisect": 26,
        "search": 0,
    }
    assert done.returncode == 1
