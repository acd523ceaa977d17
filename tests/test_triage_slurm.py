"""`knobs triage --executor slurm` on a real one-node Slurm cluster (tests/slurm_cluster.py):
runs as batch jobs, their output and exit status collected, timeouts and Ctrl-C cancelled."""

from __future__ import annotations

import json
import os
import re
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from tests import slurm_cluster as cluster_module
from tests.conftest import REPO, run_knobs, write_tree
from tests.slurm_cluster import Cluster

EXAMPLE = REPO / "examples"
HANG_GUARD_S = 180  # a hang fails the test instead of blocking the suite; nothing is timed

REGISTRY = """\
version: 1
knobs:
  SYN_CLEAN:
    default: "1"
    default_on: true
    triage: untriaged
  SYN_FAIL:
    default: "0"
    default_on: false
    triage: untriaged
  SYN_RUNDIR:
    default: "0"
    default_on: false
    triage: untriaged
  SYN_SLOW:
    default: "0"
    default_on: false
    triage: untriaged
"""

JOB = """
import os, sys, time
from pathlib import Path

def on(name, default="1"):
    return os.environ.get(name, default) != "0"

with (Path(os.environ["KNOBS_TRIAGE_ORIGIN"]) / "jobs.log").open("a") as log:
    print(os.environ["SLURM_JOB_ID"], os.environ["KNOBS_TRIAGE_SLOT"], file=log)
print("in its folder", os.getcwd() == os.environ["KNOBS_TRIAGE_RUN_DIR"])
print("step 1 loss 2.5")
if on("SYN_RUNDIR", "0"):  # differs between runs, the same way every time
    job, cpus = os.environ["SLURM_JOB_NAME"], os.environ["SLURM_CPUS_PER_TASK"]
    print("job", job, "with", cpus, "cpus in", Path.cwd().name)
if on("SYN_FAIL", "0"):
    print("loading shard 3", file=sys.stderr)
    sys.exit("job.py: SYN_FAIL is on: boom")
if on("SYN_SLOW", "0"):
    time.sleep(120)
"""


@pytest.fixture()
def project(tmp_path: Path, slurm_cluster: Cluster) -> Path:
    assert slurm_cluster.jobs() == []
    return write_tree(tmp_path, {"registry.yaml": REGISTRY, "job.py": JOB})


def triage(cluster: Cluster, cwd: Path, *args: str) -> tuple[int, str, str]:
    done = run_knobs("triage", *args, cwd=cwd, env=cluster.env)
    return done.returncode, done.stdout.replace(sys.executable, "PYTHON"), done.stderr


@pytest.mark.slow
def test_runs_are_batch_jobs_whose_output_and_status_are_collected(
    project: Path, slurm_cluster: Cluster
) -> None:
    code, out, _ = triage(
        slurm_cluster, project, "-k", "SYN_CLEAN", "-k", "SYN_FAIL", "-k", "SYN_RUNDIR",
        "--jobs", "2", "--executor", "slurm", "--slurm-arg=--cpus-per-task=2",
        "--slurm-arg", "--time=5",
        "--", sys.executable, "job.py",
    )  # fmt: skip
    assert out == (
        "knobs triage: PYTHON job.py\n"
        "compare: stdout; runs per setting: 2; profile: none; candidates: 3\n"
        "sweep      knobs on     verdict          runs\n"
        "─────────────────────────────────────────────\n"
        "baseline   -            reproducible        2\n"
        "alone      SYN_CLEAN    reproducible        2\n"
        "alone      SYN_FAIL     error               2\n"
        "alone      SYN_RUNDIR   breaks-bitwise      2\n"
        "\n"
        "SYN_FAIL: run 1 exited with status 1; the end of its stderr:\n"
        "  loading shard 3\n"
        "  job.py: SYN_FAIL is on: boom\n"
        "SYN_RUNDIR: run 2 differs from run 1 at line 3: 'job knobs-triage with 2 cpus in "
        "run-1' != 'job knobs-triage with 2 cpus in run-2'\n"
        "\n"
        "Breaks bitwise reproducibility alone: SYN_RUNDIR.\n"
        "Reproducible alone: SYN_CLEAN.\n"
        "Could not be judged (a run failed): SYN_FAIL.\n"
        "Runs of the command: 8 (baseline 2, alone 6).\n"
    )
    assert code == 4
    jobs = [line.split() for line in (project / "jobs.log").read_text().splitlines()]
    assert len({job for job, _ in jobs}) == 8  # a Slurm job per run
    assert {slot for _, slot in jobs} == {"0", "1"}
    assert slurm_cluster.jobs() == []
    assert list(project.glob(".knobs/triage/*/knobs-runs-*")) == []  # the runs' folders went


@pytest.mark.slow
def test_wall_time_is_the_commands_on_the_node(project: Path, slurm_cluster: Cluster) -> None:
    code, out, _ = triage(
        slurm_cluster, project, "-k", "SYN_CLEAN", "--format", "json", "--cost", "wall",
        "--executor", "slurm", "--", "sh", "-c", "sleep 0.3; echo loss 2.5",
    )  # fmt: skip
    assert code == 0, out
    measured = json.loads(out)["cost"]["knobs"]["SYN_CLEAN"]
    assert 0.3 <= measured["on"] < 5 and 0.3 <= measured["off"] < 5  # not the time in the queue


@pytest.mark.slow
def test_a_refused_submission_is_an_error_with_what_sbatch_said(
    project: Path, slurm_cluster: Cluster
) -> None:
    code, out, _ = triage(
        slurm_cluster, project, "-k", "SYN_CLEAN", "--executor", "slurm",
        "--slurm-arg=--partition=nope", "--", sys.executable, "job.py",
    )  # fmt: skip
    assert "baseline: run 1 exited with status 127; the end of its stderr:\n" in out
    assert (
        "  knobs triage: sbatch refused the run: sbatch: error: invalid partition specified: nope"
    ) in out
    assert code == 4


@pytest.mark.slow
def test_a_timeout_cancels_the_job(project: Path, slurm_cluster: Cluster) -> None:
    code, out, _ = triage(
        slurm_cluster, project, "-k", "SYN_SLOW", "--timeout", "2", "--jobs", "2",
        "--executor", "slurm", "--", sys.executable, "job.py",
    )  # fmt: skip
    assert "alone      SYN_SLOW   error" in out
    assert re.search(
        r"SYN_SLOW: run 1 timed out after 2 s and was stopped; the end of its stderr:\n"
        r"  slurmstepd\S*: error: \*\*\* JOB \d+ ON \S+ CANCELLED AT \S+ \*\*\*\n",
        out,
    ), out
    assert code == 4
    assert slurm_cluster.jobs() == []


@pytest.mark.slow
def test_a_job_that_slurm_ends_is_an_error_saying_how(
    project: Path, slurm_cluster: Cluster
) -> None:
    code, out, _ = triage(
        slurm_cluster, project, "-k", "SYN_CLEAN", "--executor", "slurm",
        "--", "sh", "-c", 'scancel --full --signal=KILL "$SLURM_JOB_ID"; sleep 30',
    )  # fmt: skip
    assert code == 4
    # slurmstepd signals the step before it kills it: on a busy machine the script that
    # wraps the command sees its shell end by SIGTERM first (status 143) and writes that.
    killed = re.search(
        r"baseline: run 1 was killed by signal \d+; the end of its stderr:\n"
        r"  slurmstepd\S*: error: \*\*\* JOB (\d+) ON \S+ CANCELLED AT \S+ \*\*\*\n"
        r"(?:  Terminated\n)?"  # bash's report of its killed child, when it outlives it
        r"  knobs triage: Slurm job \1 ended CANCELLED without an exit status\.\n",
        out,
    )
    terminated = re.search(
        r"baseline: run 1 exited with status 143; the end of its stderr:\n"
        r"  slurmstepd\S*: error: \*\*\* JOB \d+ ON \S+ CANCELLED AT \S+ \*\*\*\n"
        r"  Terminated\n",
        out,
    )
    assert killed or terminated, out
    assert slurm_cluster.jobs() == []


@pytest.mark.slow
def test_ctrl_c_cancels_every_job(project: Path, slurm_cluster: Cluster) -> None:
    log = project / "started"
    process = subprocess.Popen(
        [sys.executable, "-m", "knobregistry", "triage", "-k", "SYN_CLEAN", "--jobs", "2",
         "--executor", "slurm", "--", "sh", "-c", f"echo $SLURM_JOB_ID >> {log}; sleep 300"],
        cwd=project,
        env={**os.environ, **slurm_cluster.env},
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )  # fmt: skip
    deadline = time.monotonic() + HANG_GUARD_S
    while not (log.exists() and len(log.read_text().split()) == 2):
        if process.poll() is not None or time.monotonic() > deadline:
            process.kill()
            pytest.fail(f"the runs did not start: {process.communicate()}")
        time.sleep(0.1)
    assert len(slurm_cluster.jobs()) == 2
    process.send_signal(signal.SIGINT)
    _, err = process.communicate(timeout=HANG_GUARD_S)
    assert process.returncode == 130, err
    assert err.splitlines()[-1] == "knobs triage: interrupted; every run was stopped."
    assert slurm_cluster.jobs() == []
    assert len(list(project.glob(".knobs/triage/*/journal.jsonl"))) == 1  # to resume


def verdicts(out: str) -> list[tuple[str, list[str], str]]:
    """The sweep, knobs and verdict of each setting in a JSON document."""
    document = json.loads(out)
    outcomes = [document["baseline"], *document["alone"]]
    return [(o["sweep"], o["knobs"], o["verdict"]) for o in outcomes]


@pytest.mark.slow
def test_the_example_gives_its_local_verdicts_through_slurm(
    tmp_path: Path, slurm_cluster: Cluster
) -> None:
    """The verdicts test_triage_example.py measures locally for these two knobs."""
    slurm = run_knobs(
        "triage", "--executor", "slurm",
        "--registry", str(EXAMPLE / "registry.yaml"), "--profile", "bitwise",
        "-k", "TOY_FUSED_LINEAR_CE", "-k", "TOY_ROPE_TRITON", "--jobs", "2",
        "--compare", "tensors:params.pt", "--format", "json",
        "--", sys.executable, str(EXAMPLE / "train.py"), "--steps", "20",
        "--save-tensors", "params.pt",
        cwd=tmp_path, env=slurm_cluster.env,
    )  # fmt: skip
    assert verdicts(slurm.stdout) == [
        ("baseline", [], "reproducible"),
        ("alone", ["TOY_FUSED_LINEAR_CE"], "breaks-bitwise"),
        ("alone", ["TOY_ROPE_TRITON"], "reproducible"),
    ], slurm.stderr
    assert slurm.returncode == 1
    assert slurm_cluster.jobs() == []


@pytest.mark.parametrize(
    ("args", "env", "message"),
    [
        (
            ["--slurm-arg=--partition=gpu"],
            {},
            "--slurm-arg goes with --executor slurm; add it, or drop --slurm-arg.",
        ),
        (
            ["--executor", "slurm", "--jobs", "2", "--devices-per-run", "4"],
            {},
            "--devices-per-run splits this machine's devices between local runs; with "
            "--executor slurm, Slurm gives each job its devices: ask for them with "
            "--slurm-arg=--gpus-per-node=N.",
        ),
        (
            ["--executor", "slurm", "--slurm-arg", "-o", "--slurm-arg=out.log"],
            {},
            "--slurm-arg '-o': triage sets --output itself (each run's output, folder and "
            "environment are its to collect); leave it out.",
        ),
        (
            ["--executor", "slurm", "--slurm-arg=--export=NONE"],
            {},
            "--slurm-arg '--export=NONE': triage sets --export itself (each run's output, "
            "folder and environment are its to collect); leave it out.",
        ),
        (
            ["--executor", "slurm"],
            {"PATH": "/nonexistent"},
            "--executor slurm needs Slurm's commands, and sbatch, squeue, scancel, scontrol "
            "are not on PATH; run triage where jobs are submitted (a login node), or put "
            "Slurm's bin folder on PATH.",
        ),
    ],
)
def test_options_that_do_not_go_together_are_refused(
    tmp_path: Path, args: list[str], env: dict[str, str], message: str
) -> None:
    write_tree(tmp_path, {"registry.yaml": REGISTRY})
    done = run_knobs("triage", "-k", "SYN_CLEAN", *args, "--", "true", cwd=tmp_path, env=env)
    assert (done.returncode, done.stdout, done.stderr) == (
        2,
        "",
        f"knobs triage: error: {message}\n",
    )


def test_without_slurm_or_apt_get_the_cluster_says_why(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr("tests.apt.shutil.which", lambda name: None)
    with pytest.raises(cluster_module.ClusterUnavailable) as unavailable:
        cluster_module.install()
    assert str(unavailable.value) == (
        "Slurm is not installed (munged, slurmctld, slurmd, sbatch, squeue, scancel, scontrol, "
        "sinfo missing) and there is no apt-get to install slurm-wlm and munge"
    )
