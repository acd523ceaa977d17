"""Evidence from the run: the probe goes through the command's launcher and interpreter, so the
versions recorded are the command's (another interpreter's, here one without torch)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from knobregistry._io.procfs import alive
from knobregistry.registry import load_registry
from knobregistry.triage.probe import PROBE_OUTPUT_BYTES, SOURCE, find_probe, run_probe
from tests.conftest import run_knobs, write_tree

REGISTRY = """
version: 1
knobs:
  SYN_CLEAN:
    default: "1"
    default_on: true
    triage: untriaged
"""
JOB = 'print("step 1 loss 2.5")\n'


@pytest.fixture(scope="module")
def bare_python(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A second interpreter: a venv without torch (nor pip, which keeps it quick)."""
    venv = tmp_path_factory.mktemp("bare") / "venv"
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(venv)], check=True)
    return venv / "bin" / "python"


def test_the_evidence_of_another_interpreter_is_that_interpreters(
    tmp_path: Path, bare_python: Path
) -> None:
    project = write_tree(tmp_path, {"registry.yaml": REGISTRY, "job.py": JOB})
    done = run_knobs(
        "triage", "--record", "--format", "json", "--", str(bare_python), "job.py", cwd=project
    )
    assert done.returncode == 0, done.stderr
    host = json.loads(done.stdout)["host"]
    # knobs runs in a venv with torch; the command's interpreter has none.
    assert "torch" in json.loads(_local_probe())["versions"]
    assert host["versions"] == {"python": ".".join(map(str, sys.version_info[:3]))}
    assert (host["gpu"], host["gpus"]) == (None, None)  # unknown without torch: not zero
    assert host["versions_from"] == f"probe: {bare_python} -c '<knobs probe>' ({bare_python})"
    assert "note:" not in done.stderr
    (record,) = load_registry(project / "registry.yaml").knobs["SYN_CLEAN"].evidence.records  # type: ignore[union-attr]
    assert "torch" not in record.versions
    assert record.versions_from == host["versions_from"]


def _local_probe() -> str:
    return subprocess.run(
        [sys.executable, "-c", SOURCE], capture_output=True, text=True, check=True
    ).stdout


def test_a_script_is_probed_with_the_interpreter_its_shebang_names(
    tmp_path: Path, bare_python: Path
) -> None:
    project = write_tree(tmp_path, {"registry.yaml": REGISTRY, "job.py": f"#!{bare_python}\n{JOB}"})
    (project / "job.py").chmod(0o755)
    done = run_knobs("triage", "--format", "json", "--", "./job.py", cwd=project)
    assert done.returncode == 0, done.stderr
    host = json.loads(done.stdout)["host"]
    assert "torch" not in host["versions"]
    assert host["versions_from"] == f"probe: {bare_python} -c '<knobs probe>' ({bare_python})"


def test_without_a_python_to_probe_the_evidence_is_knobs_own_with_a_note(
    tmp_path: Path,
) -> None:
    project = write_tree(tmp_path, {"registry.yaml": REGISTRY})
    done = run_knobs("triage", "--format", "json", "--", "sh", "-c", "echo 1", cwd=project)
    assert done.returncode == 0, done.stderr
    reason = "`sh` is not a Python interpreter and the command names none before its script"
    assert done.stderr.splitlines()[-1] == (
        f"knobs triage: note: the versions recorded are those of the Python that runs knobs "
        f"({sys.executable}), not the command's: {reason}; name a probe with --probe COMMAND."
    )
    host = json.loads(done.stdout)["host"]
    assert host["versions_from"] == f"the Python that runs knobs ({sys.executable}): {reason}"
    assert "torch" in host["versions"]


def test_a_probe_that_fails_falls_back_with_a_note(tmp_path: Path) -> None:
    project = write_tree(tmp_path, {"registry.yaml": REGISTRY})
    done = run_knobs(
        "triage", "--format", "json", "--probe", "sh -c 'echo no GPU here >&2; exit 3'",
        "--", "sh", "-c", "echo 1",
        cwd=project,
    )  # fmt: skip
    assert done.stderr.splitlines()[-1] == (
        f"knobs triage: note: the versions recorded are those of the Python that runs knobs "
        f"({sys.executable}), not the command's: the probe `sh -c 'echo no GPU here >&2; "
        "exit 3'` exited with status 3 (no GPU here); name a probe with --probe COMMAND."
    )


FAKE_RANKS = """
import json
for host, rank in (("node-2", 0), ("node-1", 1), ("node-1", 2)):
    print(json.dumps({"probe": "knobs-probe", "host": host, "executable": "/opt/py",
                      "gpu": "NVIDIA H200", "gpus": 8,
                      "versions": {"python": "3.12.1", "torch": "2.13.0", "cuda": "12.8",
                                   "driver": "nvidia 570.1"}}))
print("srun: job 7 finished")
"""


def test_a_named_probe_reports_every_host_and_their_gpus(tmp_path: Path) -> None:
    write_tree(tmp_path, {"ranks.py": FAKE_RANKS})
    probe = find_probe(("true",), tmp_path, f"{sys.executable} ranks.py")
    host = run_probe(probe, tmp_path, tmp_path / "probe", dict(os.environ), 60)
    assert (host.name, host.hosts, host.gpu, host.gpus) == (
        "node-1",
        ("node-1", "node-2"),
        "NVIDIA H200",
        16,  # 8 per host, over two hosts (two ranks on node-1 see the same 8)
    )
    assert host.versions["driver"] == "nvidia 570.1"
    assert host.note is None
    assert not (tmp_path / "probe").exists()


def test_the_probe_keeps_the_launcher_and_finds_the_interpreter(tmp_path: Path) -> None:
    write_tree(
        tmp_path,
        {
            "bin/torchrun": "#!/opt/venv/bin/python3.12\nfrom torch.distributed.run import main\n",
            "bin/launch.sh": "#!/bin/bash\nexec python train.py\n",
            "train.py": JOB,
        },
    )

    def probe(*command: str, explicit: str | None = None) -> tuple[str, ...] | None:
        return find_probe(command, tmp_path, explicit).command

    c = ("-c", SOURCE)
    assert probe("srun", "-N", "2", "python3", "train.py") == ("srun", "-N", "2", "python3", *c)
    assert probe("env", "A=1", "uv", "run", "python", "-m", "pkg") == (
        "env", "A=1", "uv", "run", "python", *c,
    )  # fmt: skip
    assert probe("./bin/torchrun", "--nproc-per-node", "2", "train.py") == (
        "/opt/venv/bin/python3.12", *c,
    )  # fmt: skip
    assert probe("./bin/launch.sh") is None  # a shell script: its python is inside it
    assert probe("uv", "run", "train.py") is None  # a script without a shebang
    assert probe("true", explicit="srun -N 2 python") == ("srun", "-N", "2", "python", *c)
    assert probe("true", explicit="sh probe.sh") == ("sh", "probe.sh")


def test_a_probe_that_prints_without_end_is_stopped_at_its_limit(tmp_path: Path) -> None:
    # Its output is read up to PROBE_OUTPUT_BYTES (issue 18: 300 MB took triage to 919 MB).
    probe = find_probe(("true",), tmp_path, "yes knobs")
    host = run_probe(probe, tmp_path, tmp_path / "probe", dict(os.environ), 60)
    assert host.note is not None
    assert host.note.endswith(
        f"the probe `yes knobs` printed more than {PROBE_OUTPUT_BYTES} bytes; "
        "name a probe with --probe COMMAND"
    )
    assert not (tmp_path / "probe").exists()


INTERRUPTED = """
import os, signal, sys, threading, time
from pathlib import Path
from knobregistry.triage.probe import find_probe, run_probe
here = Path(sys.argv[1])
probe = find_probe(("true",), here, "sh -c 'echo $$ > pid; sleep 60'")
def interrupt():
    while not (here / "probe" / "pid").exists():
        time.sleep(0.05)
    (here / "pid").write_text((here / "probe" / "pid").read_text())
    os.kill(os.getpid(), signal.SIGINT)
threading.Thread(target=interrupt, daemon=True).start()
run_probe(probe, here, here / "probe", dict(os.environ), 120)
"""


def test_a_probe_interrupted_is_stopped_with_its_children(tmp_path: Path) -> None:
    # Ctrl-C (or SIGTERM, which triage turns into the same exception) during host
    # detection: the probe's process group is killed, not left to run on (issue 18).
    done = subprocess.run(
        [sys.executable, "-c", INTERRUPTED, str(tmp_path)],
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert "KeyboardInterrupt" in done.stderr
    pid = int((tmp_path / "pid").read_text())
    assert not alive(pid)
    assert not (tmp_path / "probe").exists()


# A stand-in torch package: its build file (torch/version.py) in one of the forms a build
# writes, or one that is not literals; importing it says so on standard error.
STAND_IN_INIT = """
import sys
from . import version

class cuda:
    @staticmethod
    def device_count():
        return 2 if version.cuda else 0

    @staticmethod
    def get_device_name(index):
        return "Stand-in GPU"

print("torch imported", file=sys.stderr)
"""


@pytest.mark.parametrize(
    ("version_py", "host", "imported"),
    [
        (
            "from typing import Optional\n\n__version__ = '2.13.0+cpu'\n"
            "cuda: Optional[str] = None\nhip: Optional[str] = None\n",
            (None, 0, None),
            "",
        ),
        (
            "__version__ = '2.13.0+cpu'\ncuda = None\ngit_version = 'abc'\nhip = None\n",
            (None, 0, None),
            "",
        ),
        (
            "from typing import Optional\n\ncuda: Optional[str] = '12.8'\n"
            "hip: Optional[str] = None\n",
            ("Stand-in GPU", 2, "12.8"),
            "torch imported\n",
        ),
        ("cuda = None\nhip = 'x' if False else None\n", (None, 0, None), "torch imported\n"),
        ("cuda = None\n", (None, 0, None), "torch imported\n"),
    ],
    ids=["cpu-annotated", "cpu-plain", "cuda", "not-literal", "no-hip"],
)
def test_a_cpu_build_of_torch_is_known_from_its_build_file_without_importing_it(
    tmp_path: Path, version_py: str, host: tuple[object, ...], imported: str
) -> None:
    """A CPU build sees no GPU: the probe reads torch/version.py instead of importing torch
    (seconds); any other build, or a file it cannot read as literals, is imported."""
    write_tree(tmp_path, {"torch/__init__.py": STAND_IN_INIT, "torch/version.py": version_py})
    done = subprocess.run(
        [sys.executable, "-c", SOURCE],
        capture_output=True,
        text=True,
        check=True,
        env={**os.environ, "PYTHONPATH": str(tmp_path)},
    )
    report = json.loads(done.stdout)
    assert (report["gpu"], report["gpus"], report["versions"].get("cuda")) == host
    assert done.stderr == imported
