"""Triage of the bundled example, through the real CLI with real torch and Triton.

train.py runs its Triton kernels in Triton's interpreter on the CPU; the
TOY_FUSED_LINEAR_CE path adds each token's loss and gradient into shared buffers
from a thread pool, in whatever order the threads get there, as a GPU atomic_add does.
TOY_EMBED_GRAD_PARALLEL and TOY_EMBED_GRAD_ATOMIC do the same to the embedding's
gradient only together. The runs start from the bitwise profile, which turns off
what is not known to be reproducible.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest

from knobregistry.registry import Sweep, Triage, Verdict, load_registry
from tests.conftest import REPO, run_knobs

EXAMPLE = REPO / "examples"
COMMAND = ("examples/train.py", "--steps", "5", "--save-tensors", "params.pt")

TABLE = """\
knobs triage: PYTHON examples/train.py --steps 5 --save-tensors params.pt
compare: tensors:params.pt; runs per setting: 3; profile: bitwise; candidates: 2
sweep      knobs on              verdict          runs
──────────────────────────────────────────────────────
baseline   -                     reproducible        3
alone      TOY_FUSED_LINEAR_CE   breaks-bitwise      3
alone      TOY_ROPE_TRITON       reproducible        3

TOY_FUSED_LINEAR_CE: DIFFERENCE

Breaks bitwise reproducibility alone: TOY_FUSED_LINEAR_CE.
Reproducible alone: TOY_ROPE_TRITON.
Runs of the command: 9 (baseline 3, alone 6).

Recorded in REGISTRY:
  TOY_FUSED_LINEAR_CE: breaks-bitwise; 1 record added
  TOY_ROPE_TRITON: reproducible; 1 record added
"""

# The first differing element of the final parameters, and how far apart they are.
DIFFERENCE = re.compile(
    r"run [23] differs from run 1 at params\.pt\['[\w.]+'\]\[\d+(, \d+)*\]: \S+ != \S+; "
    r"\d+ of \d+ elements differ, max abs diff \S+( \(and \d+ more tensors? differs?\))?"
)


@pytest.mark.slow
def test_triage_finds_the_accumulation_order_knob_and_records_it(tmp_path: Path) -> None:
    registry = tmp_path / "registry.yaml"
    shutil.copy(EXAMPLE / "registry.yaml", registry)
    done = run_knobs(
        "triage", "--registry", str(registry), "--profile", "bitwise",
        "-k", "TOY_FUSED_LINEAR_CE", "-k", "TOY_ROPE_TRITON", "--runs", "3",
        "--jobs", "2", "--compare", "tensors:params.pt", "--record",
        "--dir", str(tmp_path / "journal"),
        "--", sys.executable, *COMMAND,
        cwd=REPO,
    )  # fmt: skip
    shown = os.path.relpath(registry, REPO)  # paths are shown relative to the current folder
    out = done.stdout.replace(sys.executable, "PYTHON").replace(shown, "REGISTRY")
    found = DIFFERENCE.search(out)
    assert found is not None, out
    assert out.replace(found.group(0), "DIFFERENCE") == TABLE
    assert done.returncode == 1
    assert not (REPO / "params.pt").exists()  # each run wrote its own, in its own folder

    knobs = load_registry(registry).knobs
    for name, verdict in (
        ("TOY_FUSED_LINEAR_CE", Verdict.BREAKS_BITWISE),
        ("TOY_ROPE_TRITON", Verdict.REPRODUCIBLE),  # Triton kernels, forward and backward
    ):
        assert knobs[name].triage is Triage(verdict.value)
        evidence = knobs[name].evidence
        assert evidence is not None
        latest = evidence.records[-1]
        assert (latest.verdict, latest.sweep, latest.runs) == (verdict, Sweep.ALONE, 3)
        assert latest.command == (sys.executable, *COMMAND)
        assert set(latest.versions) >= {"python", "torch", "triton"}


def test_the_shipped_registry_holds_the_measured_verdicts() -> None:
    registry = load_registry(EXAMPLE / "registry.yaml")
    switches = {n: k for n, k in registry.knobs.items() if k.default_on is not None}
    untriaged = ("TOY_EMBED_GRAD_ATOMIC", "TOY_EMBED_GRAD_PARALLEL", "TOY_FUSED_ADAMW")
    assert {n: switches.pop(n).triage for n in untriaged} == dict.fromkeys(
        untriaged, Triage.UNTRIAGED
    )  # what `make demo` searches
    assert {n: k.triage for n, k in switches.items()} == {
        "TOY_FUSED_LINEAR_CE": Triage.BREAKS_BITWISE,
        "TOY_FUSED_SDPA": Triage.REPRODUCIBLE,
        "TOY_RMSNORM_TRITON": Triage.REPRODUCIBLE,
        "TOY_ROPE_CACHE": Triage.REPRODUCIBLE,
        "TOY_ROPE_TRITON": Triage.REPRODUCIBLE,
        "TOY_SWIGLU_FUSED": Triage.REPRODUCIBLE,
        "TOY_SWIGLU_TRITON_BWD": Triage.REPRODUCIBLE,
    }
    for name, knob in switches.items():
        assert knob.evidence is not None, name
        alone = [r for r in knob.evidence.records if r.sweep is Sweep.ALONE]
        assert [r.verdict.value for r in alone] == [knob.triage.value], name
        assert alone[0].compare == "tensors:params.pt" and alone[0].host
    # Every knob reproducible alone was also swept in pairs and all on together.
    for name in ("TOY_RMSNORM_TRITON", "TOY_SWIGLU_FUSED", "TOY_SWIGLU_TRITON_BWD"):
        evidence = switches[name].evidence
        assert evidence is not None
        assert {r.sweep for r in evidence.records} == {Sweep.ALONE, Sweep.PAIRS, Sweep.BISECT}


def test_the_bitwise_profile_of_the_example_turns_off_what_breaks() -> None:
    done = run_knobs("export", "--profile", "bitwise", "--format", "dotenv", cwd=EXAMPLE)
    assert done.returncode == 0, done.stderr
    assert [line for line in done.stdout.splitlines() if not line.startswith("#")] == [
        "PYTHONHASHSEED=0",  # the stack's settings (role stack) of a torch project
        "TORCH_COMPILE_DISABLE=1",
        "TOY_EMBED_GRAD_ATOMIC=0",
        "TOY_EMBED_GRAD_PARALLEL=0",
        "TOY_FUSED_ADAMW=0",
        "TOY_FUSED_LINEAR_CE=0",
    ]


@pytest.mark.slow
def test_two_knobs_reproducible_alone_break_together(tmp_path: Path) -> None:
    """The embedding's scatter: the pool alone and the atomic add alone keep their
    order; together the threads race for the rows of frequent ids."""
    pair = ("TOY_EMBED_GRAD_ATOMIC", "TOY_EMBED_GRAD_PARALLEL")
    done = run_knobs(
        "triage", "--registry", "examples/registry.yaml", "--profile", "bitwise",
        "-k", pair[0], "-k", pair[1], "--pairs",
        "--jobs", "2", "--compare", "tensors:params.pt", "--format", "json",
        "--dir", str(tmp_path / "journal"),
        "--", sys.executable, "examples/train.py", "--steps", "10", "--save-tensors", "params.pt",
        cwd=REPO,
    )  # fmt: skip
    document = json.loads(done.stdout)
    assert document["baseline"]["verdict"] == "reproducible"
    assert [(o["knobs"], o["verdict"]) for o in document["alone"]] == [
        ([pair[0]], "reproducible"),
        ([pair[1]], "reproducible"),
    ]
    assert [(o["knobs"], o["verdict"]) for o in document["pairs"]] == [
        (list(pair), "breaks-bitwise")
    ]
    assert done.returncode == 1


BITWISE = {
    "TOY_EMBED_GRAD_ATOMIC": "0",
    "TOY_EMBED_GRAD_PARALLEL": "0",
    "TOY_FUSED_ADAMW": "0",
    "TOY_FUSED_LINEAR_CE": "0",
}


def modelled_time(on: tuple[str, ...]) -> int:
    """The modelled GPU time train.py --timing prints, with ``on`` back on over bitwise."""
    environment = {**os.environ, **BITWISE, **dict.fromkeys(on, "1")}
    done = subprocess.run(
        [sys.executable, "train.py", "--steps", "2", "--timing"],
        cwd=EXAMPLE,
        env=environment,
        capture_output=True,
        text=True,
        check=True,
    )
    found = re.search(r"^modelled GPU time (\d+) us$", done.stdout, re.MULTILINE)
    assert found is not None, done.stdout
    return int(found.group(1))


def test_the_demo_search_orders_the_knobs_by_a_modelled_time_the_same_every_run() -> None:
    """`make demo`'s search orders the knobs reproducible alone by the modelled GPU time, so
    it always turns the embedding pair back on together (wall time on the CPU is noise)."""
    settings = [(), ("TOY_FUSED_ADAMW",), ("TOY_EMBED_GRAD_PARALLEL",)]
    settings += [("TOY_EMBED_GRAD_ATOMIC",), ("TOY_EMBED_GRAD_PARALLEL", "TOY_EMBED_GRAD_ATOMIC")]
    with ThreadPoolExecutor(max_workers=2) as pool:
        times = dict(zip(settings, pool.map(modelled_time, settings), strict=True))
    baseline = times[()]
    assert {s: round(baseline / t, 2) for s, t in times.items()} == {
        (): 1.0,
        ("TOY_FUSED_ADAMW",): 1.22,
        ("TOY_EMBED_GRAD_PARALLEL",): 1.16,
        ("TOY_EMBED_GRAD_ATOMIC",): 1.1,
        ("TOY_EMBED_GRAD_PARALLEL", "TOY_EMBED_GRAD_ATOMIC"): 1.29,
    }
    demo = (REPO / "demo.sh").read_text()
    assert "--cost 'regex:modelled GPU time ([0-9]+) us'" in demo
