"""A hook added to a list that the tree calls inside a CUDA graph capture.

sglang 0.5.23: srt/speculative/dspark_components/dspark_worker_v2.py:607-612 adds, unset, a
hook made by draft_worker_common.py:148-159 to ``draft_model_runner.capture_tail_hooks``;
model_executor/runner/decode_cuda_graph_runner.py:1402,1469-1470 calls each hook in
``run_once``, which :1499 hands to the backend that captures the graph
(runner_backend/full_cuda_graph_backend.py:137,182). '0' runs the Triton markov step eagerly
instead (dspark_components/dspark_draft.py:461-486)."""

from __future__ import annotations

from pathlib import Path

from scanner import Polarity, Role
from tests.scanned import KERNEL, role_facts, scanned_knob

HOOKS = {
    "pkg/__init__.py": "",
    "pkg/kernels.py": KERNEL,
    "pkg/hooks.py": (
        "def make_capture_hook(sampler):\n"
        "    def capture_hook(runner, out):\n"
        "        sampler(out)\n\n"
        "    return capture_hook\n"
    ),
    "pkg/backend.py": (
        "import torch\n\n\n"
        "class GraphBackend:\n"
        "    def capture_one(self, key, run_once):\n"
        "        graph = torch.cuda.CUDAGraph()\n"
        "        with torch.cuda.graph(graph):\n"
        "            run_once()\n"
        "        return graph\n"
    ),
    "pkg/runner.py": (
        "from pkg.backend import GraphBackend\n\n\n"
        "class ModelRunner:\n"
        "    def __init__(self):\n"
        "        self.capture_tail_hooks = []\n\n\n"
        "class GraphRunner:\n"
        "    def __init__(self, model_runner):\n"
        "        self.model_runner = model_runner\n"
        "        self.backend = GraphBackend()\n\n"
        "    def capture_one_shape(self, forward, key):\n"
        "        def run_once():\n"
        "            out = forward()\n"
        "            for capture_hook in self.model_runner.capture_tail_hooks:\n"
        "                capture_hook(self, out)\n"
        "            return out\n\n"
        "        self.backend.capture_one(key, run_once)\n"
    ),
    "pkg/worker.py": (
        "import os\n\n"
        "from pkg.hooks import make_capture_hook\n"
        "from pkg.kernels import fused_rms_norm\n\n\n"
        "class Worker:\n"
        "    def init_cuda_graphs(self, sampler):\n"
        '        if os.environ.get("PKG_FOLDED_PROPOSAL", "1") == "1":\n'
        "            self.draft_model_runner.capture_tail_hooks.append(\n"
        "                make_capture_hook(sampler)\n"
        "            )\n\n"
        "    def propose(self, sampler, hidden):\n"
        '        if os.environ.get("PKG_FOLDED_PROPOSAL", "1") == "1" and sampler is not None:\n'
        "            return sampler.out\n"
        "        return fused_rms_norm(hidden)\n"
    ),
}


def test_a_hook_run_under_a_graph_capture_is_the_side_a_bitwise_run_leaves(
    tmp_path: Path,
) -> None:
    knob = scanned_knob(tmp_path, HOOKS, "PKG_FOLDED_PROPOSAL")
    assert role_facts(knob) == (
        Role.KERNEL,
        Polarity.ENABLE,
        "0",
        "each value reaches a kernel of its own, and only unset reaches CUDA graph capture: "
        "adds a hook to capture_tail_hooks, which run_once calls, a function handed to the "
        "call at pkg/runner.py:21 (pkg/runner.py:15) -> calls GraphBackend.capture_one "
        "(pkg/backend.py:5) -> torch.cuda.CUDAGraph at pkg/backend.py:6; "
        "PKG_FOLDED_PROPOSAL='0', calls fused_rms_norm (pkg/kernels.py:10) -> calls _fwd_kernel "
        "(pkg/kernels.py:6) -> @triton.jit _fwd_kernel at pkg/kernels.py:6, and all it alone "
        "reaches is Triton code with no hazard",
    )


def test_a_list_of_plain_values_adds_no_hook(tmp_path: Path) -> None:
    files = dict(HOOKS)
    files["pkg/worker.py"] = files["pkg/worker.py"].replace("make_capture_hook(sampler)", "sampler")
    knob = scanned_knob(tmp_path, files, "PKG_FOLDED_PROPOSAL")
    role, _, _, reason = role_facts(knob)
    assert role is Role.KERNEL
    assert reason is not None
    assert reason.startswith("PKG_FOLDED_PROPOSAL='0' runs the branch of")
    assert reason.endswith("unset, it does not")


# lmdeploy 0.18.0: pytorch/envs.py:194-197 (LMDEPLOY_ROUTER_SINGLE_GROUP_FUSED, default off),
# backends/cuda/moe_router.py:75-88 (the fused single-group router is eligible only where the
# autotuned custom kernel is not), :127-143 (forward: fused, else the autotuned kernel, else the
# PyTorch router of the base class). Where '1' takes effect, unset runs PyTorch: the autotuned
# kernel the unset side may reach is no hazard '1' avoids, and '1' is no bitwise value.
ROUTER = {
    "pkg/__init__.py": "",
    "pkg/kernels.py": (
        "import triton\nimport triton.language as tl\n\n\n"
        "@triton.autotune(configs=[triton.Config({}, num_warps=1)], key=['n'])\n"
        "@triton.jit\ndef _noaux_kernel(x_ptr, n):\n    tl.store(x_ptr, n)\n\n\n"
        "def fused_noaux_tc_routing(x):\n    _noaux_kernel[(1,)](x, 1)\n    return x\n\n\n"
        "@triton.jit\ndef _single_group_kernel(x_ptr, n):\n    tl.store(x_ptr, n)\n\n\n"
        "def fused_single_group_topk_router(x):\n"
        "    _single_group_kernel[(1,)](x, 1)\n    return x\n"
    ),
    "pkg/router.py": (
        "import os\n\n"
        "from pkg.kernels import fused_noaux_tc_routing, fused_single_group_topk_router\n\n"
        'single_group_fused = os.getenv("PKG_ROUTER_SINGLE_GROUP_FUSED", "0") == "1"\n\n\n'
        "class DefaultRouter:\n"
        "    def forward(self, logits):\n"
        "        return logits.sigmoid().topk(8)\n\n\n"
        "class CudaRouter(DefaultRouter):\n"
        "    def __init__(self, n_experts):\n"
        "        self.enable_custom_kernel = n_experts % 32 == 0\n"
        "        eligible = not self.enable_custom_kernel and n_experts == 192\n"
        "        self.enable_single_group_fused = single_group_fused and eligible\n\n"
        "    def forward(self, logits):\n"
        "        if self.enable_single_group_fused:\n"
        "            return fused_single_group_topk_router(logits)\n"
        "        elif self.enable_custom_kernel:\n"
        "            return fused_noaux_tc_routing(logits)\n"
        "        else:\n"
        "            return super().forward(logits)\n"
    ),
}


def test_an_autotuned_kernel_in_another_branch_is_no_reason_to_turn_a_kernel_on(
    tmp_path: Path,
) -> None:
    knob = scanned_knob(tmp_path, ROUTER, "PKG_ROUTER_SINGLE_GROUP_FUSED")
    assert (knob.role, knob.polarity) == (Role.KERNEL, Polarity.ENABLE)
    assert knob.role_reason is not None
    assert knob.role_reason.endswith("; unset, it does not"), knob.role_reason
