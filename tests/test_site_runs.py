"""A site's probes run the statements before its read once, and find what runs from the
top of the function find."""

from __future__ import annotations

from pathlib import Path

import libcst as cst
import pytest

from scanner import ScanResult, scan
from scanner.interpret import site_runs
from scanner.interpret.evaluate import Evaluator, Flow
from scanner.interpret.frames import Frame
from tests.conftest import write_tree

# The shape of Primus's optimizer step model (primus/core/projection/module_profilers/
# optimizer.py:67-121 at the pinned commit): a method computes locals from its
# parameters and other methods, then reads one variable (PRIMUS_OPT_HBM_EFF, line 91),
# then, under a test of its config, another (PRIMUS_OPT_MUON_NS_MS, line 104).
OPTIMIZER = """
import os

_ADAM_BYTES_PER_PARAM = 16


class OptimizerProfiler:
    def estimated_step_time_ms(self, dp_size):
        params_per_gpu = self._count_params_per_gpu()
        mp_config = self.config.model_parallel_config
        use_distributed_optimizer = getattr(mp_config, "use_distributed_optimizer", False)
        use_fsdp = getattr(mp_config, "use_torch_fsdp2", False)
        if use_distributed_optimizer or use_fsdp:
            params_for_optim = params_per_gpu // max(dp_size, 1)
        else:
            params_for_optim = params_per_gpu
        total_bytes = params_for_optim * _ADAM_BYTES_PER_PARAM
        hbm_bw_gbps = self._get_hbm_bandwidth_gbps()
        hbm_bw_bytes_per_ms = hbm_bw_gbps * 1e9 / 1e3
        opt_hbm_eff = float(os.getenv("PRIMUS_OPT_HBM_EFF", "0.21"))
        step_ms = total_bytes / (hbm_bw_bytes_per_ms * opt_hbm_eff)
        if str(getattr(self.config.model_config, "optimizer", "") or "").lower() == "muon":
            override = os.getenv("PRIMUS_OPT_MUON_NS_MS")
            if override is not None:
                step_ms += float(override)
            else:
                step_ms += self._muon_newton_schulz_ms()
        return step_ms
"""

# Statements before a read that a copy of the run could not stand for (an object its
# later statements change), and a read whose statements before it read the variable too:
# each of these runs from the top per probe. A closure made in the scope is made again
# in each copy (it sees the frame it was made in): ``closed`` and ``closed_late`` resume,
# and ``closed_late``'s closure reads a local the site's test sets after the pause.
# Its switches are compared to the on and off words, so that every probe runs.
KEPT = """
import os


class env_str:
    def __init__(self, key, default):
        self.key = key
        self.default = default

    def get(self):
        return os.environ.get(self.key, self.default)


def held():
    holder = env_str("H_KERNEL", "eager")
    if os.environ.get("H_FUSED", "0") in ("1", "true", "yes", "on"):
        holder.default = "fused"
    return holder.get()


def closed():
    def pick():
        return "fused"

    chosen = pick
    if os.environ.get("C_FUSED", "0") in ("1", "true", "yes", "on"):
        return chosen()
    return None


def closed_late():
    late = "eager"

    def pick():
        return late

    if os.environ.get("L_FUSED", "0") in ("1", "true", "yes", "on"):
        late += "-fused"
    return pick()


def twice():
    first = os.environ.get("T_FUSED")
    if os.environ.get("T_FUSED", "0") in ("1", "true", "yes", "on"):
        return first
    return None
"""

# The shape of unsloth 2026.10.9's LlamaCppBackend.load_model (wheel, studio/backend/core/
# inference/llama_cpp.py:22218-31479): a 9,000-line method whose body, after a nested
# ``def _load_cancelled`` (line 22225), is ``with self._serial_load_scope():`` (22280), in
# it another ``with`` (22967) holding statements that compute locals and then read
# variables (``os.environ.get("CUDA_DEVICE_ORDER")``, 23468, under a ``try`` at 23362).
LOCKED = """
import os


class Backend:
    def load_model(self, intent, extra_args):
        def _load_cancelled():
            return self._cancel_generation

        with self._serial_load_scope():
            gpu_layers = intent.gpu_layers
            with self._spawn_lock:
                tensor_split = list(intent.tensor_split) if intent.tensor_split else None
                split_mode = (os.environ.get("LLAMA_ARG_SPLIT_MODE") or "").strip().lower()
                if split_mode in ("row", "layer"):
                    gpu_layers = -1
                if _load_cancelled():
                    return False
                try:
                    order = (os.environ.get("CUDA_DEVICE_ORDER") or "").strip().upper()
                    if order == "PCI_BUS_ID":
                        return gpu_layers
                except KeyError:
                    return None
            return tensor_split
"""


def _scan(root: Path) -> ScanResult:
    return scan([root], root=root, jobs=1)


def _ran(monkeypatch: pytest.MonkeyPatch, names: tuple[str, ...]) -> list[str]:
    """The assignments to ``names`` the interpreter runs, one entry per run of each."""
    ran: list[str] = []
    statement = Evaluator.statement

    def counting(self: Evaluator, node: cst.CSTNode, frame: Frame) -> Flow:
        target = node.targets[0].target if isinstance(node, cst.Assign) else None
        if isinstance(target, cst.Name) and target.value in names:
            ran.append(target.value)
        return statement(self, node, frame)

    monkeypatch.setattr(Evaluator, "statement", counting)
    return ran


def _sites(result: ScanResult) -> list[object]:
    return [
        (k.name, site.line, site.gate, site.decisions) for k in result.knobs for site in k.sites
    ]


def test_statements_before_a_read_run_once_for_its_probes(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    write_tree(tmp_path, {"pkg/optimizer.py": OPTIMIZER})
    ran = _ran(monkeypatch, ("params_per_gpu", "total_bytes"))
    result = _scan(tmp_path)
    assert [k.name for k in result.knobs] == ["PRIMUS_OPT_HBM_EFF", "PRIMUS_OPT_MUON_NS_MS"]
    # Once for each of the two sites' probes (six values or more each): where each run
    # started from the top, each statement ran once per probe.
    assert ran.count("params_per_gpu") == 2
    assert ran.count("total_bytes") == 2


def test_statements_before_a_read_under_with_statements_run_once_for_its_probes(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    write_tree(tmp_path, {"pkg/backend.py": LOCKED})
    ran = _ran(monkeypatch, ("tensor_split",))
    result = _scan(tmp_path)
    assert [k.name for k in result.knobs] == ["CUDA_DEVICE_ORDER", "LLAMA_ARG_SPLIT_MODE"]
    # Once for each of the two sites' probes (six values or more each): the statements
    # inside the two ``with`` statements before each read, behind a closure made in the
    # method; run from the top, once per probe.
    assert ran == ["tensor_split", "tensor_split"]


def test_resumed_runs_find_what_runs_from_the_top_find(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    tree = {"pkg/optimizer.py": OPTIMIZER, "pkg/kept.py": KEPT, "pkg/backend.py": LOCKED}
    write_tree(tmp_path, tree)
    resumed = _scan(tmp_path)
    monkeypatch.setattr(site_runs, "_fixed", lambda frame: False)  # never paused
    whole = _scan(tmp_path)
    assert resumed == whole
    assert _sites(resumed) == _sites(whole)
    fused = [k.name for k in resumed.knobs if k.name.endswith("FUSED")]
    assert fused == ["C_FUSED", "H_FUSED", "L_FUSED", "T_FUSED"]


def test_a_run_is_not_resumed_from_what_a_later_statement_can_change(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    write_tree(tmp_path, {"pkg/kept.py": KEPT})
    knob: list[str] = []  # the site whose probe runs
    ran: list[tuple[str, str]] = []  # (that site's variable, the assignment run)
    probes: list[str] = []
    statement = Evaluator.statement
    call = site_runs.SiteRuns.__call__

    def counting(self: Evaluator, node: cst.CSTNode, frame: Frame) -> Flow:
        if knob and isinstance(node, cst.Assign) and isinstance(node.targets[0].target, cst.Name):
            ran.append((knob[-1], node.targets[0].target.value))
        return statement(self, node, frame)

    def probing(self: site_runs.SiteRuns, value: str | None) -> object:
        knob.append(self._knob)
        probes.append(self._knob)
        try:
            return call(self, value)
        finally:
            knob.pop()

    monkeypatch.setattr(Evaluator, "statement", counting)
    monkeypatch.setattr(site_runs.SiteRuns, "__call__", probing)
    _scan(tmp_path)
    for name, local in (("H_FUSED", "holder"), ("T_FUSED", "first")):
        assert ran.count((name, local)) == probes.count(name) > 2, name
    for name, local in (("C_FUSED", "chosen"), ("L_FUSED", "late")):
        # Run again only where the module's shared caches grew since the pause.
        assert 1 <= ran.count((name, local)) < probes.count(name) - 2, name
