"""Roles from what the code does: each gate followed to what its branches reach.

Every case is a small tree on disk in the shape of the real code it stands for (the file
it was read from is named above it), scanned; the role, the knob's polarity and off value,
and the whole evidence chain are checked."""

from __future__ import annotations

from pathlib import Path

import pytest

from scanner import GateKind, Polarity, Role
from tests.scanned import KERNEL, bitwise_exports, role_facts, scanned_knob

# AMD-AGI/Primus fd1eeab, v4_attention_kernels/_triton_common/hc_glue.py:573 and
# transformer/hyper_connection.py:343: a predicate in one module, tested in another under
# an alias, beside another condition.
PREDICATE = {
    "pkg/__init__.py": "",
    "pkg/kernels.py": KERNEL,
    "pkg/glue.py": (
        "import os\n\n\ndef is_triton_path_enabled() -> bool:\n"
        '    return os.environ.get("PRIMUS_HC_TRITON", "1") != "0"\n'
    ),
    "pkg/layer.py": (
        "import torch\n\n"
        "from pkg.glue import is_triton_path_enabled as _hc_glue_enabled\n"
        "from pkg.kernels import fused_rms_norm\n\n\n"
        "def forward(x, supported):\n"
        "    if _hc_glue_enabled() and supported:\n"
        "        return fused_rms_norm(x)\n"
        "    return torch.nn.functional.rms_norm(x, x.shape[-1:])\n"
    ),
}

# Primus fd1eeab, transformer/compressor.py:191: the read in the test, beside conditions on
# the tensor, and the kernel imported inside the branch.
INLINE = {
    "pkg/__init__.py": "",
    "pkg/kernels.py": KERNEL,
    "pkg/compressor.py": (
        "import os\n\nimport torch\n\n\n"
        "def pool(kv, score):\n"
        "    if (\n"
        '        os.environ.get("PRIMUS_COMPRESS_POOL_TRITON", "1") != "0"\n'
        "        and kv.is_cuda\n"
        "        and kv.dtype in (torch.float16, torch.bfloat16)\n"
        "    ):\n"
        "        from pkg.kernels import fused_rms_norm\n\n"
        "        pooled = fused_rms_norm(kv)\n"
        "    else:\n"
        "        pooled = (kv * score.softmax(-1)).sum(-1)\n"
        "    return pooled\n"
    ),
}

# Liger-Kernel 0.8.5, ops/fused_moe.py: a module constant named for turning autotune off,
# true for "0": the value "0" is what turns autotuning off, whatever the constant is called.
AUTOTUNE = {
    "pkg/__init__.py": "",
    "pkg/moe.py": (
        "import os\n\nimport triton\n\n"
        "_AUTOTUNE_DISABLED = os.environ.get(\n"
        '    "LIGER_FUSED_MOE_AUTOTUNE", "1"\n'
        ').lower() in ("0", "false", "no")\n\n\n'
        "def _configs():\n"
        "    return [triton.Config({'BLOCK': b}) for b in (32, 64, 128)]\n\n\n"
        "def configs():\n"
        "    if _AUTOTUNE_DISABLED:\n"
        "        return [triton.Config({'BLOCK': 64})]\n"
        "    return _configs()\n"
    ),
}

# unsloth 2026.10.9, models/_utils.py: decode is compiled unless UNSLOTH_EAGER_DECODE is
# set; "1" is the value that leads away from the compiled path.
EAGER = {
    "pkg/__init__.py": "",
    "pkg/decode.py": (
        "import os\n\nimport torch\n\n\n"
        "def make_decode(model):\n"
        '    if os.environ.get("UNSLOTH_EAGER_DECODE", "0") == "1":\n'
        "        return model.forward\n"
        '    return torch.compile(model.forward, fullgraph=True, mode="reduce-overhead")\n'
    ),
}

# Primus fd1eeab, examples/.../deepseek_v4_flash-BF16-pretrain.yaml:122 and
# transformer/deepseek_v4_attention.py:741,1634: a launcher variable lands in a config key,
# stored on the layer and dispatched on; "eager" is the choice that reaches no kernel.
CHOICE = {
    "conf/exp.yaml": (
        "model:\n  use_v4_attention_backend: ${PRIMUS_USE_V4_ATTENTION_BACKEND:triton_v2}\n"
    ),
    "pkg/__init__.py": "",
    "pkg/kernels.py": KERNEL,
    "pkg/gluon.py": "import triton\n\n\n@triton.jit\ndef gluon_attention(q):\n    pass\n",
    "pkg/attention.py": (
        "import torch\n\nfrom pkg.gluon import gluon_attention\n"
        "from pkg.kernels import fused_rms_norm\n\n"
        '_ATTN_BACKENDS = ("eager", "triton_v1", "triton_v2", "gluon")\n\n\n'
        "class Attention:\n"
        "    def __init__(self, config):\n"
        '        self._attn_backend: str = str(getattr(config, "use_v4_attention_backend", '
        '"triton_v1") or "triton_v1")\n'
        "        if self._attn_backend not in _ATTN_BACKENDS:\n"
        '            raise ValueError("not a backend")\n\n'
        "    def forward(self, q):\n"
        "        be = self._attn_backend\n"
        '        if be == "triton_v2":\n'
        "            return fused_rms_norm(q)\n"
        '        if be == "gluon":\n'
        "            return gluon_attention(q)\n"
        "        return torch.softmax(q, -1)\n"
    ),
}

# megatron-core 0.16.1 documents gradient_accumulation_fusion as a fused kernel; the trainer
# that reads it is not in the tree.
TRAINER_KEY = {
    "conf/exp.yaml": (
        "model:\n  gradient_accumulation_fusion: ${PRIMUS_GRADIENT_ACCUMULATION_FUSION:true}\n"
    ),
}

# A deterministic mode: the on side calls torch's deterministic API.
MODE = {
    "pkg/__init__.py": "",
    "pkg/setup.py": (
        "import os\n\nimport torch\n\n\n"
        "def setup():\n"
        '    if os.environ.get("FW_DETERMINISTIC", "0") == "1":\n'
        "        torch.use_deterministic_algorithms(True)\n"
    ),
}

# vllm-project/vllm v0.11+ (pinned in benchmarks/should/vllm.yaml), triton_utils/__init__.py:33
# and force_first_config.py: the on value installs a replacement of Triton's Autotuner.run,
# reached through importlib, that times no config: autotuning made deterministic.
FIRST_CONFIG = {
    "pkg/__init__.py": "",
    "pkg/envs.py": ('import os\n\nFORCE = os.getenv("FW_TRITON_FORCE_FIRST_CONFIG", "0") == "1"\n'),
    "pkg/force.py": (
        "def install():\n"
        "    import importlib\n\n"
        '    autotuner_mod = importlib.import_module("triton.runtime.autotuner")\n'
        "    Autotuner = autotuner_mod.Autotuner\n\n"
        "    def _first(self, *args, **kwargs):\n"
        "        return self.fn.run(*args, config=self.configs[0], **kwargs)\n\n"
        "    Autotuner.run = _first\n"
    ),
    "pkg/utils.py": (
        "from pkg import envs\n\n"
        "if envs.FORCE:\n"
        "    from pkg.force import install\n\n"
        "    install()\n"
    ),
}

# A dispatch on a config key written as one test per choice: the key compared with one
# choice in one test and another in the next; each test weighs every choice named.
CHOICES_APART = {
    "conf/exp.yaml": "model:\n  attn_impl: ${X_ATTN_IMPL:triton}\n",
    "pkg/__init__.py": "",
    "pkg/kernels.py": KERNEL,
    "pkg/run.py": (
        "from pkg.kernels import fused_rms_norm\n\n\n"
        "def run(config, x):\n"
        '    if config.attn_impl == "triton":\n'
        "        return fused_rms_norm(x)\n"
        '    if config.attn_impl == "eager":\n'
        "        return x\n"
        '    raise ValueError("no such attention")\n'
    ),
}

# Primus fd1eeab, backends/megatron/patches/turbo/moe_dispatcher_patches.py:19-60: the
# config key read into a local the predicate returns, and the predicate handed to the
# decorator that registers the patch (``condition=``); the patch runs when it holds.
REGISTERED = {
    "conf/exp.yaml": "model:\n  use_turbo_deepep: ${X_USE_TURBO_DEEPEP:true}\n",
    "pkg/__init__.py": "",
    "pkg/kernels.py": KERNEL,
    "pkg/patches.py": (
        "def register_patch(name, condition=None):\n"
        "    def wrap(f):\n"
        "        return f\n\n"
        "    return wrap\n\n\n"
        "def _can_patch(args):\n"
        '    use_turbo_deepep = bool(getattr(args, "use_turbo_deepep", False))\n'
        "    return use_turbo_deepep and args.ready\n\n\n"
        '@register_patch("turbo.deepep", condition=_can_patch)\n'
        "def patch_dispatcher(args):\n"
        "    from pkg.kernels import fused_rms_norm\n\n"
        "    args.dispatch = fused_rms_norm\n"
    ),
}

# sgl-project/sglang (pinned in benchmarks/should/sglang.yaml), srt/models/inkling_common/
# moe.py:406-416: the read is one of seven conditions of an ``and``; the other six decide
# together, so the test is still weighed.
MANY_CONDITIONS = {
    "pkg/__init__.py": "",
    "pkg/kernels.py": KERNEL,
    "pkg/gate.py": (
        "import os\n\nfrom pkg.kernels import fused_rms_norm\n\n\n"
        "class Gate:\n"
        "    def forward(self, x):\n"
        "        if (\n"
        "            self.capturer is None\n"
        '            and os.environ.get("X_FUSED_GATE_TOPK", "1") == "1"\n'
        "            and self.n == 4\n"
        '            and self.activation == "sigmoid"\n'
        "            and self.norm_after_topk\n"
        "            and self.scale is not None\n"
        "            and self.bias is not None\n"
        "        ):\n"
        "            return fused_rms_norm(x)\n"
        "        return x.sigmoid()\n"
    ),
}

# AMD-AGI/Primus fd1eeab, v4_attention_kernels/_triton_v1/v4_attention_bwd.py:1778: the gate
# launches the pool keys' dK/dV kernel and has no else; off, nothing computes them.
SKIPPED = {
    "pkg/__init__.py": "",
    "pkg/kernels.py": KERNEL,
    "pkg/bwd.py": (
        "import os\n\nfrom pkg.kernels import _fwd_kernel\n\n\n"
        "def backward(dk, n):\n"
        "    _fwd_kernel[(1,)](dk, n)\n"
        '    if n > 0 and os.getenv("X_BWD_POOL", "1") == "1":\n'
        "        pool = n - 1\n"
        "        _fwd_kernel[(1,)](dk, pool)\n"
        "    return dk\n"
    ),
}
# huggingface/transformers (pinned in benchmarks/should/transformers.yaml),
# integrations/finegrained_fp8.py:250-283: the kernel's branch returns, so the code after it
# (another path) is what runs when the knob leaves it.
RETURNS = {
    "pkg/__init__.py": "",
    "pkg/kernels.py": KERNEL,
    "pkg/linear.py": (
        "import os\n\nfrom pkg.kernels import fused_rms_norm\n\n\n"
        "def linear(x, ready):\n"
        '    preferred = ready and os.environ.get("X_DISABLE_FUSED_LINEAR", "0") != "1"\n'
        "    if preferred:\n"
        "        try:\n"
        "            return fused_rms_norm(x)\n"
        "        except ImportError:\n"
        "            pass\n"
        "    return x * 2\n"
    ),
}
# sgl-project/sglang, srt/layers/quantization/fp8_utils.py:1725-1764: the value picks the
# callable an if/elif/else binds and calls after; every arm is a kernel of its own.
PICKED = {
    "pkg/__init__.py": "",
    "pkg/kernels.py": KERNEL,
    "pkg/gemm.py": (
        "import os\n\nfrom flashinfer import gemm as other_gemm\n"
        "from flashinfer import gemm_preshuffle\n"
        "from pkg.kernels import fused_rms_norm\n\n\n"
        "def gemm(x, shuffled):\n"
        '    use_triton = os.environ.get("X_GEMM_USE_CK", "0") != "1"\n'
        "    if use_triton:\n"
        "        op = fused_rms_norm\n"
        "    elif shuffled:\n"
        "        op = gemm_preshuffle\n"
        "    else:\n"
        "        op = other_gemm\n"
        "    return op(x)\n"
    ),
}
# sgl-project/sglang, srt/hardware_backend/npu/utils.py:285: a weight's format cast.
LAYOUT = {
    "pkg/__init__.py": "",
    "pkg/npu.py": (
        "import os\n\nimport torch\n\n\n"
        "def format_weight(layer):\n"
        '    if os.environ.get("X_DISABLE_FORMAT_WEIGHT", "0") == "1":\n'
        "        return\n"
        "    layer.weight.data = torch.ops.npu.npu_format_cast(layer.weight.data, 29)\n"
    ),
}
# vllm 0.33.0, third_party/fmha_sm100/kvouter/interface.py:174-185 and cpp_backend.py:100-135:
# the unset side asks whether a backend's runtime can be found; a library's runtime loader
# runs no kernel.
PROBE = {
    "pkg/__init__.py": "",
    "pkg/backend.py": (
        "def backend_available():\n"
        "    try:\n"
        "        from cutlass.cute.runtime import find_runtime_libraries\n\n"
        "        find_runtime_libraries()\n"
        "    except ImportError:\n"
        "        return False\n"
        "    return True\n"
    ),
    "pkg/interface.py": (
        "import os\n\nfrom pkg.backend import backend_available\n\n\n"
        "def attention(x):\n"
        '    env = os.environ.get("X_KVOUTER_CPP")\n'
        '    if env == "1":\n'
        '        backend = "cpp"\n'
        "    else:\n"
        '        backend = "cpp" if backend_available() else "python"\n'
        "    return backend\n"
    ),
}
# sgl-project/sglang, srt/layers/attention/deepseek_v4_backend.py:1268-1271, 2917-2933 and
# 4362-4399: what runs instead is a kernel the constructor binds to an attribute.
BOUND = {
    "pkg/__init__.py": "",
    "pkg/kernels.py": KERNEL,
    "pkg/backend.py": (
        "import functools\nimport os\n\nimport flash_mla\n\n"
        "from pkg.kernels import fused_rms_norm\n\n\n"
        "class Backend:\n"
        "    def __init__(self):\n"
        "        self._decode = functools.partial(\n"
        "            flash_mla.flash_mla_with_kvcache, legacy=True\n"
        "        )\n\n"
        "    def forward(self, x, n):\n"
        '        if n > 100 or os.environ.get("X_SPARSE_PREFILL", "1") == "1":\n'
        "            return fused_rms_norm(x)\n"
        "        decode = self._decode\n"
        "        return decode(x)\n"
    ),
}
# sgl-project/sglang, srt/models/kimi_k3_vl.py:809-834: the on side runs a method of an object
# the method binds to an attribute (self.runner = Runner(...); self.runner.run(x)).
RUNNER = {
    "pkg/__init__.py": "",
    "pkg/kernels.py": KERNEL,
    "pkg/runner.py": (
        "import torch\n\n\n"
        "class GraphRunner:\n"
        "    def __init__(self, model):\n"
        "        self.model = model\n\n"
        "    def run(self, x):\n"
        "        graph = torch.cuda.CUDAGraph()\n"
        "        return graph, x\n"
    ),
    "pkg/tower.py": (
        "import os\n\nfrom pkg.kernels import fused_rms_norm\n\n\n"
        "class Tower:\n"
        "    def __init__(self):\n"
        "        self.runner = None\n\n"
        "    def forward(self, x):\n"
        '        if os.environ.get("X_VIT_CUDA_GRAPH", "0") == "1":\n'
        "            if self.runner is None:\n"
        "                from pkg.runner import GraphRunner\n\n"
        "                self.runner = GraphRunner(self)\n"
        "            return self.runner.run(x)\n"
        "        return fused_rms_norm(x)\n"
    ),
}
# sgl-project/sglang 0.5.23, srt/multimodal/kimi_k3_vit_cuda_graph_runner.py:37-51,80-116: the
# runner keeps the tower it is built with (``self.tower = tower``, annotated ``tower:
# KimiK3VisionTower``, imported only for type checking) and captures and replays
# ``self.tower._forward_eager``, or runs it eagerly (:152-200): the graph side runs the same
# kernels as the eager side, which are evidence for neither; only the graph capture is its own.
TOWER = {
    "pkg/__init__.py": "",
    "pkg/kernels.py": KERNEL,
    "pkg/runner.py": (
        "from __future__ import annotations\n\n"
        "from typing import TYPE_CHECKING\n\nimport torch\n\n"
        "if TYPE_CHECKING:\n    from pkg.tower import Tower\n\n\n"
        "class GraphRunner:\n"
        "    def __init__(self, tower: Tower):\n"
        "        self.tower = tower\n\n"
        "    def run(self, x):\n"
        "        if x.numel() <= 1024:\n"
        "            graph = torch.cuda.CUDAGraph()\n"
        "            with torch.cuda.graph(graph):\n"
        "                out = self.tower.eager(x)\n"
        "            graph.replay()\n"
        "            return out\n"
        "        return self.tower.eager(x)  # the eager fallback\n"
    ),
    "pkg/tower.py": (
        "import os\n\nfrom pkg.kernels import fused_rms_norm\n\n\n"
        "class Tower:\n"
        "    def __init__(self):\n"
        "        self.runner = None\n\n"
        "    def forward(self, x):\n"
        '        if os.environ.get("X_VIT_CUDA_GRAPH", "0") == "1":\n'
        "            if self.runner is None:\n"
        "                from pkg.runner import GraphRunner\n\n"
        "                self.runner = GraphRunner(self)\n"
        "            return self.runner.run(x)\n"
        "        return self.eager(x)\n\n"
        "    def eager(self, x):\n"
        "        return fused_rms_norm(x)\n"
    ),
}
# sgl-project/sglang 0.5.23: sglang/ has an __init__.py, sglang/srt/ and its folders have none
# (namespace packages), and srt/layers/logprob_processor.py imports its Triton kernels as
# ``from sglang.srt.layers.logsumexp import ...`` (srt/layers/logsumexp.py:157).
NAMESPACE_PACKAGE = {
    "pkg/__init__.py": "",
    "pkg/srt/layers/kernels.py": KERNEL,
    "pkg/srt/layers/logprob.py": (
        "import os\n\nimport torch\n\n"
        "from pkg.srt.layers.kernels import fused_rms_norm\n\n\n"
        "def logprobs(x):\n"
        '    if os.environ.get("X_FAST_LOGPROBS", "1") == "1":\n'
        "        return fused_rms_norm(x)\n"
        "    return torch.log_softmax(x, -1)\n"
    ),
}
# sgl-project/sglang 0.5.23, srt/layers/attention/deepseek_v4_backend.py:4262-4399: leaving the
# sparse prefill runs the decode path, which picks its kernel by the machine: on SM120 a
# dispatcher (one of whose choices is plain), elsewhere FlashMLA bound to an attribute.
PLATFORM = {
    "pkg/__init__.py": "",
    "pkg/kernels.py": KERNEL,
    "pkg/sm120.py": (
        "import os\n\nimport torch\n\nfrom pkg.kernels import fused_rms_norm\n\n"
        '_BACKEND = os.environ.get("X_SM120_BACKEND", "triton")\n\n\n'
        "def decode_sm120(x):\n"
        '    if _BACKEND == "triton":\n'
        "        return fused_rms_norm(x)\n"
        "    return torch.softmax(x, -1)\n"
    ),
    "pkg/backend.py": (
        "import functools\nimport os\n\nimport flash_mla\n\n"
        "from pkg.kernels import fused_rms_norm\nfrom pkg.platform import get_platform\n\n\n"
        "class Backend:\n"
        "    def __init__(self):\n"
        "        self._decode = functools.partial(\n"
        "            flash_mla.flash_mla_with_kvcache, legacy=True\n"
        "        )\n\n"
        "    def forward(self, x, n):\n"
        '        if n > 100 or os.environ.get("X_SPARSE_PREFILL", "1") == "1":\n'
        "            return fused_rms_norm(x)\n"
        "        if get_platform().is_sm120:\n"
        "            from pkg.sm120 import decode_sm120\n\n"
        "            out = decode_sm120(x)\n"
        "        else:\n"
        "            decode = self._decode\n"
        "            out = decode(x)\n"
        "        return out\n"
    ),
    "pkg/platform.py": "def get_platform():\n    return None\n",
}
# vllm 0.33.0 (wheel), v1/worker/gpu/sample/sampler.py:312-360 with
# v1/sample/ops/topk_topp_sampler.py:186-215,631-664: the fused branch holds both fused
# samplers (FlashInfer for the switch on, the XPU custom op for it off on XPU), the other a
# Triton sample: the XPU op is reached from both values' branches, so it says nothing.
JOINED = {
    "pkg/__init__.py": "",
    "pkg/kernels.py": KERNEL,
    "pkg/ops.py": (
        "import flashinfer\nimport torch\n\n\n"
        "def xpu_sample(x):\n"
        "    return torch.ops.x.xpu_topk_topp_sampler(x)\n\n\n"
        "def fi_sample(x):\n"
        "    return flashinfer.sampling.top_k_sampling_from_probs(x)\n"
    ),
    "pkg/sampler.py": (
        "import os\n\nfrom pkg.kernels import fused_rms_norm\n"
        "from pkg.ops import fi_sample, xpu_sample\n\n\n"
        "class Sampler:\n"
        "    def __init__(self, xpu):\n"
        '        self.use_fi = os.getenv("X_USE_FI_SAMPLER", "1") != "0"\n'
        "        self.use_xpu = xpu\n\n"
        "    def sample(self, x, eligible):\n"
        "        use_fused = (self.use_fi or self.use_xpu) and eligible\n"
        "        return self._sample(x, use_fused)\n\n"
        "    def _sample(self, x, use_fused):\n"
        "        if use_fused:\n"
        "            if self.use_fi:\n"
        "                out = fi_sample(x)\n"
        "            else:\n"
        "                out = xpu_sample(x)\n"
        "        else:\n"
        "            out = fused_rms_norm(x)\n"
        "        return out\n"
    ),
}
# ROCm/aiter e404860, ops/triton/_triton_kernels/chunk_delta_attn/flash_kda.py:73-75 (on unless
# "0", "false", "no" or "off") and chunk_fwd.py:128-173: on, the fused forward (autotuned
# kernels, flash_kda.py:100-113); off, the default pipeline, autotuned too (gla_output.py:43-62).
TUNED = """\
import triton
import triton.language as tl

CONFIGS = [triton.Config({"B": 32}), triton.Config({"B": 64})]


@triton.autotune(configs=CONFIGS, key=["n"])
@triton.jit
def _segment_kernel(x_ptr, n, B: tl.constexpr):
    tl.store(x_ptr, n)


@triton.jit
def _output_kernel(x_ptr, n):
    tl.store(x_ptr, n)


def fused_fwd(x):
    _segment_kernel[(1,)](x, 1)
    return x


def pipeline_fwd(x):
    _output_kernel[(1,)](x, 1)
    return x
"""
CHUNK = {
    "pkg/__init__.py": "",
    "pkg/chunk.py": (
        "import os\n\nfrom pkg.tuned import fused_fwd, pipeline_fwd\n\n\n"
        "def use_fused():\n"
        '    return os.environ.get("X_USE_FLASH_KDA", "1").lower() not in (\n'
        '        "0", "false", "no", "off"\n'
        "    )\n\n\n"
        "def chunk_fwd(x, supported):\n"
        "    if use_fused() and supported:\n"
        "        return fused_fwd(x)\n"
        "    return pipeline_fwd(x)\n"
    ),
}
# Both values autotune: the hazard is on each side, and the code does not say which is safe.
BOTH_TUNED = {
    **CHUNK,
    "pkg/tuned.py": TUNED.replace(
        "@triton.jit\ndef _output_kernel",
        '@triton.autotune(configs=CONFIGS, key=["n"])\n@triton.jit\ndef _output_kernel',
    ),
}
# Only the fused side autotunes: the pipeline's plain Triton kernel is the bitwise choice.
ONE_TUNED = {**CHUNK, "pkg/tuned.py": TUNED}
# sgl-project/sglang 0.5.23, srt/models/inkling_common/attn.py:194,375,773-869: on, the scale
# is folded into the kernel's operand; off, applied after it: both values call the same kernel.
SAME = {
    "pkg/__init__.py": "",
    "pkg/kernels.py": KERNEL,
    "pkg/attn.py": (
        "import os\n\nfrom pkg.kernels import fused_rms_norm\n\n\n"
        "class Attn:\n"
        "    def __init__(self):\n"
        '        self._fused_log_tau = os.environ.get("X_FUSED_LOG_TAU", "1") == "1"\n\n'
        "    def forward(self, q, tau):\n"
        "        if self._fused_log_tau:\n"
        "            q = fused_rms_norm(q * tau)\n"
        "        else:\n"
        "            q = fused_rms_norm(q) * tau\n"
        "        return q\n"
    ),
}
# AMD-AGI/Primus fd1eeab, v4_attention_kernels/_triton_v1/v4_csa_attention_bwd.py:1328,1365,
# 2068-2237: the sorted partial runs only with the segmented reduction; without it (another
# switch, or a shape), the atomic kernel of the last arm runs whatever this switch says.
SORTED = {
    "pkg/__init__.py": "",
    "pkg/bwd.py": (
        "import os\n\nimport triton\nimport triton.language as tl\n\n\n"
        "@triton.jit\ndef _sorted_kernel(x_ptr):\n    tl.store(x_ptr, 0)\n\n\n"
        "@triton.jit\ndef _partial_kernel(x_ptr):\n    tl.store(x_ptr, 1)\n\n\n"
        "@triton.jit\ndef _atomic_kernel(x_ptr):\n    tl.atomic_add(x_ptr, 1)\n\n\n"
        "def bwd(x, split):\n"
        '    use_seg = split and os.getenv("X_SEGREDUCE", "1") == "1"\n'
        '    use_sorted = os.getenv("X_SORTED_PARTIAL", "0") != "0"\n'
        "    if use_seg and use_sorted:\n"
        "        _sorted_kernel[(1,)](x)\n"
        "    elif use_seg:\n"
        "        _partial_kernel[(1,)](x)\n"
        "    else:\n"
        "        _atomic_kernel[(1,)](x)\n"
    ),
}
# sgl-project/sglang 0.5.23, srt/models/deepseek_common/amd/deepseek_v4_hip.py:65-66: a predicate
# returns ``bool(envs.X.get() and attn.q_head_norm)``, tested by its callers
# (srt/models/deepseek_v4.py:2163).
BOOL_OF = {
    "pkg/__init__.py": "",
    "pkg/kernels.py": KERNEL,
    "pkg/hip.py": (
        "import os\n\n\n"
        "def use_fused_qk_norm_rope(attn) -> bool:\n"
        '    return bool(os.environ.get("X_FUSED_QK_NORM_ROPE", "1") == "1" and attn.norm)\n'
    ),
    "pkg/model.py": (
        "import torch\n\n"
        "from pkg.hip import use_fused_qk_norm_rope\nfrom pkg.kernels import fused_rms_norm\n\n\n"
        "def forward(attn, q):\n"
        "    if use_fused_qk_norm_rope(attn):\n"
        "        return fused_rms_norm(q)\n"
        "    return torch.nn.functional.rms_norm(q, q.shape[-1:])\n"
    ),
}
# sgl-project/sglang 0.5.23: one switch read by two accessors, one of which takes "on" for
# true (get_bool_env_var, read at multimodal_gen/runtime/layers/layernorm.py:130) and one
# for false (srt/environ.py EnvBool, read at srt/distributed/device_communicators/
# custom_all_reduce.py:409, and handed on as deterministic= at srt/distributed/
# parallel_state.py:490): "on" is weighed after the values every site agrees on.
BOTH_WAYS = {
    "pkg/__init__.py": "",
    "pkg/norm.py": (
        "import os\n\nimport aiter\nimport torch\n\n\n"
        "def get_bool_env_var(name, default='false'):\n"
        "    return os.getenv(name, default).lower() in ('true', '1', 'on')\n\n\n"
        "def norm(x):\n"
        '    if not get_bool_env_var("X_DETERMINISTIC"):\n'
        "        return aiter.rmsnorm2d_fwd(x)\n"
        "    return torch.nn.functional.rms_norm(x, x.shape[-1:])\n"
    ),
    "pkg/ar.py": (
        "import os\n\nimport aiter\nimport sgl_kernel\n\n"
        '_DET = os.environ.get("X_DETERMINISTIC", "0").lower() in ("1", "true")\n\n\n'
        "def all_reduce(x):\n"
        "    if _DET:\n"
        "        return sgl_kernel.deterministic_all_reduce(x)\n"
        "    return aiter.custom_all_reduce(x)\n\n\n"
        "def reduce_scatter(x):\n"
        "    return sgl_kernel.reduce_scatter(x, deterministic=_DET)\n"
    ),
}
# sgl-project/sglang 0.5.23, srt/models/deepseek_v4_dspark.py:214-230: what runs instead is a
# plain path on a GPU and Ascend's fused operator on an NPU: a kernel of another machine.
OTHER_MACHINE = {
    "pkg/__init__.py": "",
    "pkg/kernels.py": KERNEL,
    "pkg/draft.py": (
        "import os\n\nimport torch\nimport torch_npu\n\n"
        "from pkg.kernels import fused_rms_norm\n\n"
        "_is_npu = False\n\n\n"
        "class Draft:\n"
        "    def __init__(self):\n"
        '        self.fast = os.environ.get("X_FAST_KERNEL", "1") == "1"\n\n'
        "    def forward(self, x):\n"
        "        if self.fast:\n"
        "            return fused_rms_norm(x)\n"
        "        if _is_npu:\n"
        "            out = torch_npu.npu_rms_norm(x)\n"
        "        else:\n"
        "            out = torch.nn.functional.rms_norm(x, x.shape[-1:])\n"
        "        return out\n"
    ),
}
# sgl-project/sglang 0.5.23, srt/model_executor/runner/decode_cuda_graph_runner.py:992-1000: a
# class compared with (``type(self) is DecodeCudaGraphRunner``) is not called.
COMPARED = {
    "pkg/__init__.py": "",
    "pkg/runner.py": (
        "import os\n\nimport torch\n\n\n"
        "class Runner:\n"
        "    def __init__(self):\n"
        "        self.compiled = torch.compile(self.forward)\n\n"
        "    def forward(self, x):\n"
        "        return x\n\n"
        "    def _name(self):\n"
        "        if type(self) is Runner:\n"
        '            return "Draft"\n'
        '        return "Runner"\n\n'
        "    def trace_name(self):\n"
        '        if os.environ.get("X_CAPTURE_TRACE", "0") != "1":\n'
        "            return self._name()\n"
        "        return None\n"
    ),
}
# sgl-project/sglang 0.5.23, srt/utils/common.py:220-224: the variable is read in a test of the
# machine (``is_cpu()``), and every branch it decides is another machine's code.
MACHINE = {
    "pkg/__init__.py": "",
    "pkg/kernels.py": KERNEL,
    "pkg/utils.py": (
        "import os\n\n\n"
        "def is_cpu() -> bool:\n"
        '    if os.getenv("X_USE_CPU_ENGINE", "0") != "1":\n'
        "        return False\n"
        "    return True\n"
    ),
    "pkg/attention.py": (
        "import torch\n\nfrom pkg.kernels import fused_rms_norm\nfrom pkg.utils import is_cpu\n\n\n"
        "def attention(q):\n"
        "    if not is_cpu():\n"
        "        return fused_rms_norm(q)\n"
        "    return torch.softmax(q, -1)\n"
    ),
}
# sgl-project/sglang 0.5.23, srt/speculative/eagle_worker_v2.py:1424-1442: the on side may run a
# path that samples with ``deterministic=True`` (eagle_utils.py:768), as the verify step always
# does: a mode one path of it reaches is no deterministic mode of the switch.
MODE_SOMETIMES = {
    "pkg/__init__.py": "",
    "pkg/worker.py": (
        "import os\n\nfrom pkg.sampling import sampler\n\n\n"
        "def verify(x):\n"
        "    return sampler(x, deterministic=True)\n\n\n"
        "def forward(batch, x):\n"
        '    if os.environ.get("X_PREFILL_COORDINATION", "0") == "1":\n'
        "        if batch.heterogeneous:\n"
        "            return verify(x)\n"
        "        return x\n"
        "    return x\n"
    ),
    "pkg/sampling.py": "def sampler(x, deterministic=False):\n    return x\n",
}
# sgl-project/sglang 0.5.23, srt/layers/attention/dsa/utils.py:355-370: X_FP8_..._TORCH=1 picks
# the torch implementation of the same FP8 logits, the name's FP8 notwithstanding.
TORCH_PATH = {
    "pkg/__init__.py": "",
    "pkg/kernels.py": KERNEL,
    "pkg/logits.py": (
        "import os\n\nimport torch\n\nfrom pkg.kernels import fused_rms_norm\n\n\n"
        "def logits(q, k):\n"
        '    if os.environ.get("X_FP8_MQA_LOGITS_TORCH", "0") == "1":\n'
        "        return torch.matmul(q, k)\n"
        "    return fused_rms_norm(q)\n"
    ),
}
# sgl-project/sglang 0.5.23, srt/layers/quantization/unquant.py:295-366: a split-K GEMM switch
# whose name says BF16, the dtype it runs in.
SPLITK = {
    "pkg/__init__.py": "",
    "pkg/kernels.py": KERNEL,
    "pkg/gemm.py": (
        "import os\n\nimport torch\n\nfrom pkg.kernels import fused_rms_norm\n\n\n"
        "def gemm(a, b):\n"
        '    if os.environ.get("X_ENABLE_BF16_SPLITK_GEMM", "1") == "1":\n'
        "        return fused_rms_norm(a)\n"
        "    return torch.matmul(a, b)\n"
    ),
}
# sgl-project/sglang 0.5.23, srt/environ.py:1457 (EnvInt(192)) and srt/models/deepseek_v2.py:673
# and :1210-1221: a token limit, 0 for none, taken for a switch where it is tested (here
# beside a plain int read of it, as the EnvInt declaration is).
SIZE = {
    "pkg/__init__.py": "",
    "pkg/kernels.py": KERNEL,
    "pkg/limits.py": 'import os\n\nLIMIT = int(os.environ.get("X_DEFERRED_MAX_TOKENS", "192"))\n',
    "pkg/moe.py": (
        "import os\n\nfrom pkg.kernels import fused_rms_norm\nfrom pkg.limits import LIMIT\n\n\n"
        "def forward(x, experts):\n"
        '    if os.environ.get("X_DEFERRED_MAX_TOKENS", "192") != "0" and len(x) > LIMIT:\n'
        "        return fused_rms_norm(x)\n"
        "    return experts.finalize(x)\n"
    ),
}
# sgl-project/sglang 0.5.23, srt/models/beam.py:349-357,443-457: the on side calls
# sglang.kernels.ops.moe.beam_decode_gemv, a module the wheel does not ship: what runs
# instead is code no one can read, not a plain path.
UNSEEN = {
    "pkg/__init__.py": "",
    "pkg/ops/__init__.py": "",
    "pkg/kernels.py": KERNEL,
    "pkg/moe.py": (
        "import os\n\nfrom pkg.kernels import fused_rms_norm\n\n\n"
        "class MoE:\n"
        "    def __init__(self):\n"
        '        self.use_gemv = os.environ.get("X_DECODE_GEMV", "0") == "1"\n\n'
        "    def forward(self, x):\n"
        "        if self.use_gemv and x.shape[0] == 1:\n"
        "            from pkg.ops.gemv import decode_gemv\n\n"
        "            return decode_gemv(x)\n"
        "        return fused_rms_norm(x)\n"
    ),
}
# sgl-project/sglang, srt/batch_invariant_ops/batch_invariant_ops.py:333 and :1018: the read
# sits in code registered over aten's own ops, where the Triton kernel is the deterministic one.
OVERRIDE = {
    "pkg/__init__.py": "",
    "pkg/kernels.py": KERNEL,
    "pkg/invariant.py": (
        "import os\n\nimport torch\n\nfrom pkg.kernels import fused_rms_norm\n\n"
        '_TRITON = os.environ.get("X_INVARIANT_TRITON", "1") == "1"\n\n\n'
        "def mm(a, b):\n"
        "    if _TRITON:\n"
        "        return fused_rms_norm(a)\n"
        "    return torch.mm(a, b)\n\n\n"
        '_lib = torch.library.Library("aten", "IMPL")\n'
        '_lib.impl("mm", mm, "CUDA")\n'
    ),
}
# sgl-project/sglang, srt/utils/common.py:2656 and
# srt/model_executor/runner/flashinfer_autotune.py:299: a library's logger and a private
# helper of it run no kernel.
LOGGER = {
    "pkg/__init__.py": "",
    "pkg/common.py": (
        "import os\n\n\n"
        "def configure():\n"
        '    if os.environ.get("X_IS_FLASHINFER_AVAILABLE", "1") == "1":\n'
        "        from flashinfer.jit.core import logger\n\n"
        "        logger.setLevel(10)\n"
        "        from flashinfer.autotuner import _collect_metadata\n\n"
        "        _collect_metadata()\n"
    ),
}
# An attribute set on a kernel's function, and one read through its module: neither calls it.
NAMESPACE = {
    "pkg/__init__.py": "",
    "pkg/kernels.py": KERNEL,
    "pkg/warn.py": (
        "import os\n\nfrom pkg import kernels\nfrom pkg.kernels import fused_rms_norm\n\n\n"
        "def run(x):\n"
        '    if os.environ.get("X_WARN_ONCE", "1") == "1":\n'
        "        fused_rms_norm.warned = True\n"
        "        print(kernels.fused_rms_norm.__name__)\n"
        "    return x\n"
    ),
}


# Primus fd1eeab, kimi_delta_attention.py:310,318 and kda_kernels/__init__.py:159: the config
# key a YAML interpolation fills, kept on self and handed to a resolver that tests it.
RESOLVER = {
    "pkg/__init__.py": "",
    "pkg/kernels.py": KERNEL,
    "conf/model.yaml": "model:\n  kda_backend: ${X_KDA_BACKEND:fla}\n",
    "pkg/backends.py": (
        "from pkg.kernels import fused_rms_norm\n\n\n"
        "def eager(x):\n    return x * 2\n\n\n"
        "def resolve_kda_backend(name):\n"
        '    if name == "eager":\n'
        "        return eager\n"
        "    return fused_rms_norm\n"
    ),
    "pkg/attention.py": (
        "from pkg.backends import resolve_kda_backend\n\n\n"
        "class Attention:\n"
        "    def __init__(self, config):\n"
        '        self.backend_name = str(getattr(config, "kda_backend", "eager") or "eager")\n'
        "        self.kda = resolve_kda_backend(name=self.backend_name)\n"
    ),
}


# Primus fd1eeab, kimi_k3-BF16-8L-official.yaml:101 and kimi_k3_transformer_config.py:451-467:
# a YAML interpolation fills a unified selector key, which the config's __post_init__ copies
# (through a local) into kda_backend; the layer reads kda_backend and hands it to the resolver
# (kimi_delta_attention.py:310,318; kda_kernels/__init__.py:159).
COPIED_KEY = {
    **RESOLVER,
    "conf/model.yaml": "model:\n  use_unified_backend: ${X_ATTN_BACKEND:fla}\n",
    "pkg/config.py": (
        "from dataclasses import dataclass\n\n\n"
        "@dataclass\n"
        "class ModelConfig:\n"
        '    kda_backend: str = "eager"\n'
        "    use_unified_backend: str | None = None\n\n"
        "    def __post_init__(self):\n"
        "        if self.use_unified_backend is not None:\n"
        "            selector = str(self.use_unified_backend)\n"
        '            if selector not in ("eager", "fla"):\n'
        "                raise ValueError(selector)\n"
        "            self.use_unified_backend = selector\n"
        "            self.kda_backend = selector\n"
    ),
}

# sglang 1c2ad4d, kernels/ops/attention/flash_mla_sm120.py:209,316-371 and
# models/deepseek_v4.py:1224: the backend read once into a module name, then a dispatch on
# it in a function (flashinfer, then triton, then the PyTorch fall-through), and another
# function that asks only whether it is "flashinfer". "0" is neither choice: the
# fall-through runs, and the "triton" body, which "0" never takes, is no part of it.
STORED_DISPATCH = {
    "pkg/__init__.py": "",
    "pkg/kernels.py": KERNEL,
    "pkg/mla.py": (
        "import os\n\nimport torch\n\nfrom pkg.kernels import fused_rms_norm\n\n"
        '_default_backend = os.environ.get("X_DECODE_BACKEND", "flashinfer")\n\n\n'
        "def decode(q):\n"
        '    if _default_backend == "flashinfer":\n'
        "        return fused_rms_norm(q)\n"
        '    if _default_backend == "triton":\n'
        "        return fused_rms_norm(q)\n"
        "    return torch.softmax(q, dim=-1)\n"
    ),
    "pkg/model.py": (
        "import os\n\n\n"
        "def heads(n):\n"
        '    if os.environ.get("X_DECODE_BACKEND", "flashinfer") == "flashinfer":\n'
        "        return 64\n"
        "    return n\n"
    ),
}

CASES: list[tuple[str, dict[str, str], str, Role, Polarity, str | None, str]] = [
    *(
        (
            f"a-config-value-handed-to-a-resolver-{how}",
            {**RESOLVER, "pkg/attention.py": RESOLVER["pkg/attention.py"].replace("name=", prefix)},
            "X_KDA_BACKEND",
            Role.KERNEL,
            Polarity.ENABLE,
            "eager",
            "unset, it runs the branch of `not (name == 'eager')` at pkg/backends.py:9, which "
            "reaches calls fused_rms_norm (pkg/kernels.py:10) -> calls _fwd_kernel "
            "(pkg/kernels.py:6) -> @triton.jit _fwd_kernel at pkg/kernels.py:6; "
            "X_KDA_BACKEND='eager' leaves that branch, and what runs instead reaches no such "
            "kernel",
        )
        for how, prefix in (("by-keyword", "name="), ("by-position", ""))
    ),
    *(
        (
            f"a-config-key-the-config-copies-into-another-{how}",
            {**COPIED_KEY, "pkg/config.py": COPIED_KEY["pkg/config.py"].replace(*change)},
            "X_ATTN_BACKEND",
            Role.KERNEL,
            Polarity.ENABLE,
            "eager",
            "unset, it runs the branch of `not (name == 'eager')` at pkg/backends.py:9, which "
            "reaches calls fused_rms_norm (pkg/kernels.py:10) -> calls _fwd_kernel "
            "(pkg/kernels.py:6) -> @triton.jit _fwd_kernel at pkg/kernels.py:6; "
            "X_ATTN_BACKEND='eager' leaves that branch, and what runs instead reaches no such "
            "kernel",
        )
        for how, change in (
            ("through-a-local", ("", "")),
            (
                "directly",
                ("self.kda_backend = selector", "self.kda_backend = str(self.use_unified_backend)"),
            ),
        )
    ),
    (
        "a-predicate-tested-elsewhere",
        PREDICATE,
        "PRIMUS_HC_TRITON",
        Role.KERNEL,
        Polarity.ENABLE,
        "0",
        "unset, it runs the branch of `_hc_glue_enabled() and supported` at pkg/layer.py:8, "
        "which reaches calls fused_rms_norm (pkg/kernels.py:10) -> calls _fwd_kernel "
        "(pkg/kernels.py:6) -> @triton.jit _fwd_kernel at pkg/kernels.py:6; "
        "PRIMUS_HC_TRITON='0' leaves that branch, and what runs instead reaches no such kernel",
    ),
    (
        "the-read-in-a-test-beside-other-conditions",
        INLINE,
        "PRIMUS_COMPRESS_POOL_TRITON",
        Role.KERNEL,
        Polarity.ENABLE,
        "0",
        "unset, it runs the branch of `os.environ.get('PRIMUS_COMPRESS_POOL_TRITON', '1') != "
        "'0'...` at pkg/compressor.py:8, which reaches calls fused_rms_norm (pkg/kernels.py:10) "
        "-> calls _fwd_kernel (pkg/kernels.py:6) -> @triton.jit _fwd_kernel at "
        "pkg/kernels.py:6; PRIMUS_COMPRESS_POOL_TRITON='0' leaves that branch, and what runs "
        "instead reaches no such kernel",
    ),
    (
        "polarity-from-the-branch-not-the-name",
        AUTOTUNE,
        "LIGER_FUSED_MOE_AUTOTUNE",
        Role.KERNEL,
        Polarity.ENABLE,
        "0",
        "unset, it runs the branch of `not _AUTOTUNE_DISABLED` at pkg/moe.py:15, which reaches "
        "calls _configs (pkg/moe.py:10) -> a list of triton.Config to tune over at "
        "pkg/moe.py:11; LIGER_FUSED_MOE_AUTOTUNE='0' leaves that branch, and what runs "
        "instead reaches no such kernel",
    ),
    (
        "a-compiled-path-left-by-its-on-value",
        EAGER,
        "UNSLOTH_EAGER_DECODE",
        Role.KERNEL,
        Polarity.DISABLE,
        "0",
        "unset, it runs the branch of `not (os.environ.get('UNSLOTH_EAGER_DECODE', '0') == "
        "'1')` at pkg/decode.py:7, which reaches torch.compile at pkg/decode.py:9; "
        "UNSLOTH_EAGER_DECODE='1' leaves that branch, and what runs instead reaches no such "
        "kernel",
    ),
    (
        "a-launcher-choice-followed-into-the-code",
        CHOICE,
        "PRIMUS_USE_V4_ATTENTION_BACKEND",
        Role.KERNEL,
        Polarity.ENABLE,
        "eager",
        "unset, it runs the branch of `be == 'triton_v2'` at pkg/attention.py:17, which "
        "reaches calls fused_rms_norm (pkg/kernels.py:10) -> calls _fwd_kernel "
        "(pkg/kernels.py:6) -> @triton.jit _fwd_kernel at pkg/kernels.py:6; "
        "PRIMUS_USE_V4_ATTENTION_BACKEND='eager' leaves that branch, and what runs instead "
        "reaches no such kernel",
    ),
    (
        "a-choice-compared-in-two-tests",
        CHOICES_APART,
        "X_ATTN_IMPL",
        Role.KERNEL,
        Polarity.ENABLE,
        "eager",
        "unset, it runs the branch of `config.attn_impl == 'triton'` at pkg/run.py:5, which "
        "reaches calls fused_rms_norm (pkg/kernels.py:10) -> calls _fwd_kernel "
        "(pkg/kernels.py:6) -> @triton.jit _fwd_kernel at pkg/kernels.py:6; "
        "X_ATTN_IMPL='eager' leaves that branch, and what runs instead reaches no such kernel",
    ),
    (
        "a-patch-registered-under-a-predicate",
        REGISTERED,
        "X_USE_TURBO_DEEPEP",
        Role.KERNEL,
        Polarity.ENABLE,
        "false",
        "unset, it runs the branch of `_can_patch` at pkg/patches.py:13, which reaches calls "
        "fused_rms_norm (pkg/kernels.py:10) -> calls _fwd_kernel (pkg/kernels.py:6) -> "
        "@triton.jit _fwd_kernel at pkg/kernels.py:6; X_USE_TURBO_DEEPEP='false' leaves that "
        "branch, and what runs instead reaches no such kernel",
    ),
    (
        "a-read-among-many-conditions",
        MANY_CONDITIONS,
        "X_FUSED_GATE_TOPK",
        Role.KERNEL,
        Polarity.ENABLE,
        "0",
        "unset, it runs the branch of `self.capturer is None and "
        "os.environ.get('X_FUSED_GATE_TO...` at pkg/gate.py:9, which reaches calls "
        "fused_rms_norm (pkg/kernels.py:10) -> calls _fwd_kernel (pkg/kernels.py:6) -> "
        "@triton.jit _fwd_kernel at pkg/kernels.py:6; X_FUSED_GATE_TOPK='0' leaves that "
        "branch, and what runs instead reaches no such kernel",
    ),
    (
        "a-key-the-trainer-documents",
        TRAINER_KEY,
        "PRIMUS_GRADIENT_ACCUMULATION_FUSION",
        Role.KERNEL,
        Polarity.ENABLE,
        "false",
        "it sets the config key gradient_accumulation_fusion (conf/exp.yaml:2), which "
        "megatron-core 0.16.1 megatron/core/model_parallel_config.py:168 documents as "
        "weight-gradient accumulation fused into the GEMMs (Apex's "
        "fused_weight_gradient_mlp_cuda)",
    ),
    (
        "a-deterministic-api-on-the-on-side",
        MODE,
        "FW_DETERMINISTIC",
        Role.DETERMINISM,
        Polarity.ENABLE,
        "0",
        "FW_DETERMINISTIC='1' runs the branch of `os.environ.get('FW_DETERMINISTIC', '0') == "
        "'1'` at pkg/setup.py:7, which reaches torch.use_deterministic_algorithms(True) at "
        "pkg/setup.py:8: a deterministic mode",
    ),
    (
        # InternLM/xtuner b934f46 xtuner/v1/utils/misc.py:27-33 (the flag and the mode),
        # utils/__init__.py:11-12 (the package imports both), train/trainer.py:60, :1490-1493
        # (the trainer imports them from the package and tests the flag)
        "a-mode-flag-its-package-re-exports",
        {
            "pkg/__init__.py": "",
            "pkg/utils/misc.py": (
                "import os\n\nimport torch\n\n"
                'X_DETERMINISTIC = os.getenv("X_DETERMINISTIC") == "true"\n\n\n'
                "def set_deterministic():\n"
                "    torch.use_deterministic_algorithms(True, warn_only=True)\n"
            ),
            "pkg/utils/__init__.py": (
                "from .misc import (\n    X_DETERMINISTIC,\n    set_deterministic,\n)\n"
            ),
            "pkg/trainer.py": (
                "from pkg.utils import X_DETERMINISTIC, set_deterministic\n\n\n"
                "class Trainer:\n"
                "    def _set_deterministic(self):\n"
                "        if X_DETERMINISTIC:\n"
                "            set_deterministic()\n"
            ),
        },
        "X_DETERMINISTIC",
        Role.DETERMINISM,
        Polarity.ENABLE,
        "false",
        "X_DETERMINISTIC='true' runs the branch of `X_DETERMINISTIC` at pkg/trainer.py:6, "
        "which reaches calls set_deterministic (pkg/utils/misc.py:8) -> "
        "torch.use_deterministic_algorithms(True) at pkg/utils/misc.py:9: a deterministic mode",
    ),
    (
        "autotuning-replaced-by-a-first-config",
        FIRST_CONFIG,
        "FW_TRITON_FORCE_FIRST_CONFIG",
        Role.DETERMINISM,
        Polarity.ENABLE,
        "0",
        "FW_TRITON_FORCE_FIRST_CONFIG='1' runs the branch of `envs.FORCE` at pkg/utils.py:3, "
        "which reaches calls install (pkg/force.py:1) -> triton.runtime.autotuner.Autotuner.run "
        "replaced by code that times nothing (no autotuning) at pkg/force.py:10: a "
        "deterministic mode",
    ),
    (
        "a-kernel-branch-that-returns-leaves-the-code-after-it",
        RETURNS,
        "X_DISABLE_FUSED_LINEAR",
        Role.KERNEL,
        Polarity.DISABLE,
        "0",
        "unset, it runs the branch of `preferred` at pkg/linear.py:8, which reaches calls "
        "fused_rms_norm (pkg/kernels.py:10) -> calls _fwd_kernel (pkg/kernels.py:6) -> "
        "@triton.jit _fwd_kernel at pkg/kernels.py:6; X_DISABLE_FUSED_LINEAR='1' leaves that "
        "branch, and what runs instead reaches no such kernel",
    ),
    (
        "every-arm-of-a-picked-callable-is-a-kernel",
        PICKED,
        "X_GEMM_USE_CK",
        Role.UNKNOWN,
        Polarity.ENABLE,
        "0",
        "each value reaches a kernel of its own: unset, calls fused_rms_norm (pkg/kernels.py:10) "
        "-> calls _fwd_kernel (pkg/kernels.py:6) -> @triton.jit _fwd_kernel at "
        "pkg/kernels.py:6; X_GEMM_USE_CK='1', FlashInfer (flashinfer.gemm_preshuffle) at "
        "pkg/gemm.py:13",
    ),
    (
        "a-weight-format-cast-is-no-kernel",
        LAYOUT,
        "X_DISABLE_FORMAT_WEIGHT",
        Role.UNKNOWN,
        Polarity.DISABLE,
        "0",
        "nothing in its name, what it feeds or the functions that read it says what it controls",
    ),
    (
        "a-library-runtime-probe-is-no-kernel",
        PROBE,
        "X_KVOUTER_CPP",
        Role.UNKNOWN,
        Polarity.ENABLE,
        "0",
        "nothing in its name, what it feeds or the functions that read it says what it controls",
    ),
    (
        "what-runs-instead-is-a-kernel-bound-to-an-attribute",
        BOUND,
        "X_SPARSE_PREFILL",
        Role.UNKNOWN,
        Polarity.ENABLE,
        "0",
        "each value reaches a kernel of its own: unset, calls fused_rms_norm (pkg/kernels.py:10) "
        "-> calls _fwd_kernel (pkg/kernels.py:6) -> @triton.jit _fwd_kernel at "
        "pkg/kernels.py:6; X_SPARSE_PREFILL='0', calls Backend._decode (pkg/backend.py:11) -> "
        "FlashMLA (flash_mla.flash_mla_with_kvcache) at pkg/backend.py:12",
    ),
    (
        "a-method-of-an-object-bound-to-an-attribute",
        RUNNER,
        "X_VIT_CUDA_GRAPH",
        Role.KERNEL,
        Polarity.ENABLE,
        "0",
        "each value reaches a kernel of its own, and only X_VIT_CUDA_GRAPH='1' reaches CUDA "
        "graph capture: calls GraphRunner.run (pkg/runner.py:8) -> torch.cuda.CUDAGraph at "
        "pkg/runner.py:9; unset, calls fused_rms_norm (pkg/kernels.py:10) -> calls _fwd_kernel "
        "(pkg/kernels.py:6) -> @triton.jit _fwd_kernel at pkg/kernels.py:6, and all it alone "
        "reaches is Triton code with no hazard",
    ),
    (
        "a-method-of-the-object-a-constructor-argument-is-annotated-with",
        TOWER,
        "X_VIT_CUDA_GRAPH",
        Role.KERNEL,
        Polarity.ENABLE,
        "0",
        "X_VIT_CUDA_GRAPH='1' runs the branch of `os.environ.get('X_VIT_CUDA_GRAPH', '0') == "
        "'1'` at pkg/tower.py:11, which reaches calls GraphRunner.run (pkg/runner.py:15) -> "
        "torch.cuda.CUDAGraph at pkg/runner.py:17; unset, it does not",
    ),
    (
        "a-kernel-imported-through-namespace-packages",
        NAMESPACE_PACKAGE,
        "X_FAST_LOGPROBS",
        Role.KERNEL,
        Polarity.ENABLE,
        "0",
        "unset, it runs the branch of `os.environ.get('X_FAST_LOGPROBS', '1') == '1'` at "
        "pkg/srt/layers/logprob.py:9, which reaches calls fused_rms_norm "
        "(pkg/srt/layers/kernels.py:10) -> calls _fwd_kernel (pkg/srt/layers/kernels.py:6) -> "
        "@triton.jit _fwd_kernel at pkg/srt/layers/kernels.py:6; X_FAST_LOGPROBS='0' leaves "
        "that branch, and what runs instead reaches no such kernel",
    ),
    (
        "a-kernel-both-values-reach-is-evidence-for-neither",
        JOINED,
        "X_USE_FI_SAMPLER",
        Role.UNKNOWN,
        Polarity.ENABLE,
        "0",
        "each value reaches a kernel of its own: unset, calls fi_sample (pkg/ops.py:9) -> "
        "FlashInfer (flashinfer.sampling.top_k_sampling_from_probs) at pkg/ops.py:10; "
        "X_USE_FI_SAMPLER='0', calls fused_rms_norm (pkg/kernels.py:10) -> calls _fwd_kernel "
        "(pkg/kernels.py:6) -> @triton.jit _fwd_kernel at pkg/kernels.py:6",
    ),
    (
        "each-value-autotunes-a-kernel-of-its-own",
        BOTH_TUNED,
        "X_USE_FLASH_KDA",
        Role.UNKNOWN,
        Polarity.ENABLE,
        "0",
        "each value reaches a kernel of its own: unset, calls fused_fwd (pkg/tuned.py:19) -> "
        "calls _segment_kernel (pkg/tuned.py:9) -> triton.autotune at pkg/tuned.py:7; "
        "X_USE_FLASH_KDA='0', calls pipeline_fwd (pkg/tuned.py:24) -> calls _output_kernel "
        "(pkg/tuned.py:15) -> triton.autotune at pkg/tuned.py:13",
    ),
    (
        "only-one-value-autotunes",
        ONE_TUNED,
        "X_USE_FLASH_KDA",
        Role.KERNEL,
        Polarity.ENABLE,
        "0",
        "each value reaches a kernel of its own, and only unset reaches autotuning: calls "
        "fused_fwd (pkg/tuned.py:18) -> calls _segment_kernel (pkg/tuned.py:9) -> "
        "triton.autotune at pkg/tuned.py:7; X_USE_FLASH_KDA='0', calls pipeline_fwd "
        "(pkg/tuned.py:23) -> calls _output_kernel (pkg/tuned.py:14) -> @triton.jit "
        "_output_kernel at pkg/tuned.py:14, and all it alone reaches is Triton code with no "
        "hazard",
    ),
    (
        "each-value-calls-the-same-kernel",
        SAME,
        "X_FUSED_LOG_TAU",
        Role.UNKNOWN,
        Polarity.ENABLE,
        "0",
        "each value reaches the same kernels: unset, calls fused_rms_norm (pkg/kernels.py:10) -> "
        "calls _fwd_kernel (pkg/kernels.py:6) -> @triton.jit _fwd_kernel at pkg/kernels.py:6; "
        "X_FUSED_LOG_TAU='0', calls fused_rms_norm (pkg/kernels.py:10) -> calls _fwd_kernel "
        "(pkg/kernels.py:6) -> @triton.jit _fwd_kernel at pkg/kernels.py:6: what tells the "
        "values apart is not a kernel the code shows; a person must say",
    ),
    (
        "a-hazard-the-other-value-reaches-too-decides-nothing",
        SORTED,
        "X_SORTED_PARTIAL",
        Role.UNKNOWN,
        Polarity.ENABLE,
        "0",
        "each value reaches a kernel of its own: unset, calls _partial_kernel (pkg/bwd.py:13) -> "
        "@triton.jit _partial_kernel at pkg/bwd.py:13; X_SORTED_PARTIAL='1', calls "
        "_sorted_kernel (pkg/bwd.py:8) -> @triton.jit _sorted_kernel at pkg/bwd.py:8",
    ),
    (
        "what-runs-instead-picks-its-kernel-by-the-machine",
        PLATFORM,
        "X_SPARSE_PREFILL",
        Role.UNKNOWN,
        Polarity.ENABLE,
        "0",
        "each value reaches a kernel of its own: unset, calls fused_rms_norm (pkg/kernels.py:10) "
        "-> calls _fwd_kernel (pkg/kernels.py:6) -> @triton.jit _fwd_kernel at "
        "pkg/kernels.py:6; X_SPARSE_PREFILL='0', calls Backend._decode (pkg/backend.py:12) -> "
        "FlashMLA (flash_mla.flash_mla_with_kvcache) at pkg/backend.py:13",
    ),
    (
        "a-predicate-returns-bool-of-its-test",
        BOOL_OF,
        "X_FUSED_QK_NORM_ROPE",
        Role.KERNEL,
        Polarity.ENABLE,
        "0",
        "unset, it runs the branch of `use_fused_qk_norm_rope(attn)` at pkg/model.py:8, which "
        "reaches calls fused_rms_norm (pkg/kernels.py:10) -> calls _fwd_kernel "
        "(pkg/kernels.py:6) -> @triton.jit _fwd_kernel at pkg/kernels.py:6; "
        "X_FUSED_QK_NORM_ROPE='0' leaves that branch, and what runs instead reaches no such "
        "kernel",
    ),
    (
        "a-value-one-site-reads-as-on-and-another-as-off",
        BOTH_WAYS,
        "X_DETERMINISTIC",
        Role.DETERMINISM,
        Polarity.ENABLE,
        "0",
        "X_DETERMINISTIC='1' makes `_DET` at pkg/ar.py:16 true, and it is handed on as "
        "deterministic=: a call's deterministic mode",
    ),
    (
        "what-runs-instead-is-a-kernel-of-another-machine",
        OTHER_MACHINE,
        "X_FAST_KERNEL",
        Role.KERNEL,
        Polarity.ENABLE,
        "0",
        "unset, it runs the branch of `self.fast` at pkg/draft.py:16, which reaches calls "
        "fused_rms_norm (pkg/kernels.py:10) -> calls _fwd_kernel (pkg/kernels.py:6) -> "
        "@triton.jit _fwd_kernel at pkg/kernels.py:6; X_FAST_KERNEL='0' leaves that branch, "
        "and what runs instead reaches no such kernel",
    ),
    (
        "a-class-compared-with-is-not-called",
        COMPARED,
        "X_CAPTURE_TRACE",
        Role.DEBUG,
        Polarity.ENABLE,
        "0",
        "the name X_CAPTURE_TRACE says TRACE (logging, profiling, tests or debugging)",
    ),
    (
        "a-variable-read-in-a-test-of-the-machine",
        MACHINE,
        "X_USE_CPU_ENGINE",
        Role.UNKNOWN,
        Polarity.ENABLE,
        "0",
        "it is read in is_cpu() (pkg/utils.py:5), a test of the machine the run is on: its "
        "value chooses the machine's code, not a kernel; a person must say",
    ),
    (
        "a-mode-one-path-of-the-on-side-reaches",
        MODE_SOMETIMES,
        "X_PREFILL_COORDINATION",
        Role.UNKNOWN,
        Polarity.ENABLE,
        "0",
        "nothing in its name, what it feeds or the functions that read it says what it controls",
    ),
    (
        "a-precision-word-beside-the-plain-path-the-on-value-picks",
        TORCH_PATH,
        "X_FP8_MQA_LOGITS_TORCH",
        Role.KERNEL,
        Polarity.DISABLE,
        "0",
        "unset, it runs the branch of `not (os.environ.get('X_FP8_MQA_LOGITS_TORCH', '0') == "
        "'1')` at pkg/logits.py:9, which reaches calls fused_rms_norm (pkg/kernels.py:10) -> "
        "calls _fwd_kernel (pkg/kernels.py:6) -> @triton.jit _fwd_kernel at pkg/kernels.py:6; "
        "X_FP8_MQA_LOGITS_TORCH='1' leaves that branch, and what runs instead reaches no such "
        "kernel",
    ),
    (
        "a-precision-word-beside-split-k",
        SPLITK,
        "X_ENABLE_BF16_SPLITK_GEMM",
        Role.KERNEL,
        Polarity.ENABLE,
        "0",
        "unset, it runs the branch of `os.environ.get('X_ENABLE_BF16_SPLITK_GEMM', '1') == '1'` "
        "at pkg/gemm.py:9, which reaches calls fused_rms_norm (pkg/kernels.py:10) -> calls "
        "_fwd_kernel (pkg/kernels.py:6) -> @triton.jit _fwd_kernel at pkg/kernels.py:6; "
        "X_ENABLE_BF16_SPLITK_GEMM='0' leaves that branch, and what runs instead reaches no "
        "such kernel",
    ),
    (
        # unsloth unsloth/kernels/int4_packed.py:430-444 (vLLM's Marlin op unless '0') and
        # unsloth_zoo/temporary_patches/gpt_oss.py:532-556 (triton_kernels unless '0'): '0'
        # dequantizes the same weights and multiplies them in torch.
        "a-precision-word-on-a-kill-switch",
        {
            "pkg/__init__.py": "",
            "pkg/kernels.py": KERNEL,
            "pkg/int4.py": (
                "import os\n\nimport torch\n\nfrom pkg.kernels import fused_rms_norm\n\n\n"
                "def int4_matmul(x, w):\n"
                '    if os.environ.get("X_INT4_MARLIN", "1") != "0":\n'
                "        return fused_rms_norm(x)\n"
                "    return torch.matmul(x, w.dequantize())\n"
            ),
        },
        "X_INT4_MARLIN",
        Role.KERNEL,
        Polarity.ENABLE,
        "0",
        "unset, it runs the branch of `os.environ.get('X_INT4_MARLIN', '1') != '0'` at "
        "pkg/int4.py:9, which reaches calls fused_rms_norm (pkg/kernels.py:10) -> calls "
        "_fwd_kernel (pkg/kernels.py:6) -> @triton.jit _fwd_kernel at pkg/kernels.py:6; "
        "X_INT4_MARLIN='0' leaves that branch, and what runs instead reaches no such kernel; "
        "the name says INT4, what is computed, but '0' is an off value of its own tests, and "
        "it turns the kernel off (a kill switch): the value chooses how it is computed, not "
        "what",
    ),
    (
        "a-number-declared-is-no-switch",
        SIZE,
        "X_DEFERRED_MAX_TOKENS",
        Role.UNKNOWN,
        Polarity.ENABLE,
        "0",
        "pkg/limits.py:3 declares it with the number 192: a size or a count, whose values are "
        "not on and off; a person must say",
    ),
    (
        "what-runs-instead-calls-a-module-the-tree-lacks",
        UNSEEN,
        "X_DECODE_GEMV",
        Role.UNKNOWN,
        Polarity.ENABLE,
        "0",
        "nothing in its name, what it feeds or the functions that read it says what it controls",
    ),
    (
        "a-kernel-skipped-with-nothing-in-its-place",
        SKIPPED,
        "X_BWD_POOL",
        Role.UNKNOWN,
        Polarity.ENABLE,
        "0",
        "unset, it runs the branch of `n > 0 and os.getenv('X_BWD_POOL', '1') == '1'` at "
        "pkg/bwd.py:8, which reaches calls _fwd_kernel (pkg/kernels.py:6) -> @triton.jit "
        "_fwd_kernel at pkg/kernels.py:6; X_BWD_POOL='0' skips that branch and runs nothing in "
        "its place, so the work it does may be left undone: a person must say",
    ),
    (
        "a-read-in-code-that-replaces-torch-ops",
        OVERRIDE,
        "X_INVARIANT_TRITON",
        Role.UNKNOWN,
        Polarity.ENABLE,
        "0",
        "unset, it runs the branch of `_TRITON` at pkg/invariant.py:11, which reaches calls "
        "fused_rms_norm (pkg/kernels.py:10) -> calls _fwd_kernel (pkg/kernels.py:6) -> "
        "@triton.jit _fwd_kernel at pkg/kernels.py:6; X_INVARIANT_TRITON='0' leaves that "
        "branch, and what runs instead reaches no such kernel; but it is read in code that "
        "replaces torch's own ops (torch.library.Library('aten', 'IMPL') at "
        "pkg/invariant.py:16), where a kernel may be what makes the run deterministic: a "
        "person must say",
    ),
    (
        "a-library-logger-and-private-helper-are-no-kernel",
        LOGGER,
        "X_IS_FLASHINFER_AVAILABLE",
        Role.UNKNOWN,
        Polarity.ENABLE,
        "0",
        "nothing in its name, what it feeds or the functions that read it says what it controls",
    ),
    (
        "an-attribute-of-a-kernel-function-is-no-call",
        NAMESPACE,
        "X_WARN_ONCE",
        Role.UNKNOWN,
        Polarity.ENABLE,
        "0",
        "nothing in its name, what it feeds or the functions that read it says what it controls",
    ),
    (
        "a-stored-choice-whose-other-value-takes-the-fall-through",
        STORED_DISPATCH,
        "X_DECODE_BACKEND",
        Role.KERNEL,
        Polarity.ENABLE,
        "0",
        "unset, it runs the branch of `_default_backend == 'flashinfer'` at pkg/mla.py:11, "
        "which reaches calls fused_rms_norm (pkg/kernels.py:10) -> calls _fwd_kernel "
        "(pkg/kernels.py:6) -> @triton.jit _fwd_kernel at pkg/kernels.py:6; X_DECODE_BACKEND='0' "
        "leaves that branch, and what runs instead reaches no such kernel",
    ),
]


def test_a_choice_is_on_by_default_and_turned_off_by_its_plain_value(tmp_path: Path) -> None:
    knob = scanned_knob(tmp_path, CHOICE, "PRIMUS_USE_V4_ATTENTION_BACKEND")
    assert (knob.kind, knob.default_on, knob.off_value) == (GateKind.VALUE, True, "eager")


# unsloth models/compressed_tensors_bnb.py:1116-1162 (a subclass of transformers' bitsandbytes
# 4-bit quantizer, whose weight-loading hook keeps packed weights unless a switch says not)
# and models/mxfp4_compressed_linear.py:648-729 (a hook installed on the compressed-tensors
# quantizer): '0' leaves the packed weights to the quantizer, which re-quantizes them to
# bitsandbytes 4-bit (compressed_tensors_bnb.py:202).
LOADER_SUBCLASS = """\
import os

from transformers.quantizers.quantizer_bnb_4bit import Bnb4BitHfQuantizer

from pkg.kernels import fused_rms_norm


def keep_packed():
    return not os.environ.get("X_MXFP4_KEEP_PACKED", "1") == "0"


class Loader(Bnb4BitHfQuantizer):
    def _process_model_before_weight_loading(self, model, **kwargs):
        if not keep_packed():
            return super()._process_model_before_weight_loading(model, **kwargs)
        model.forward = fused_rms_norm
        return model
"""
LOADER_INSTALLED = """\
import os

from pkg.kernels import fused_rms_norm


def keep_packed():
    return not os.environ.get("X_MXFP4_KEEP_PACKED", "1") == "0"


def install():
    from transformers.quantizers.quantizer_compressed_tensors import CompressedTensorsHfQuantizer

    original = CompressedTensorsHfQuantizer._process_model_before_weight_loading

    def _process_model_before_weight_loading(self, model, **kwargs):
        if not keep_packed():
            return original(self, model, **kwargs)
        model.forward = fused_rms_norm
        return model

    CompressedTensorsHfQuantizer._process_model_before_weight_loading = (
        _process_model_before_weight_loading
    )
"""


NOT_EVIDENCE: list[tuple[str, dict[str, str], str, Role, str]] = [
    (
        # inclusionAI/AReaL 4aef98d8 areal/models/tree_attn/triton_kernel.py:168, :1034-1040:
        # the autotuned kernels and ``tree_attention`` under ``if TRITON_AVAILABLE:``, and in the
        # ``else:`` a ``tree_attention`` that only raises; module_fsdp.py:33, :100 and
        # constants.py:12 test the switch. The stub never stands in for the working definition:
        # '1' reaches the autotuned kernel, unset the compiled flex attention
        "a-stub-that-only-raises-in-the-other-arm-of-an-availability-test",
        {
            "pkg/__init__.py": "",
            "pkg/constants.py": (
                "import os\n"
                "USE_TRITON_TREE_ATTN = (\n"
                '    int(os.environ.get("AREAL_USE_TRITON_TREE_ATTN", "0")) == 1\n'
                ")\n"
            ),
            "pkg/module_fsdp.py": (
                "import torch\n"
                "from torch.nn.attention.flex_attention import flex_attention\n"
                "from pkg.constants import USE_TRITON_TREE_ATTN\n"
                "from pkg.triton_kernel import TRITON_AVAILABLE, tree_attention\n"
                "\n"
                "_flex_attention = torch.compile(flex_attention, dynamic=True)\n"
                "\n"
                "\n"
                "def attn(q, k, v, data=None):\n"
                "    if USE_TRITON_TREE_ATTN and data is not None and TRITON_AVAILABLE:\n"
                "        return tree_attention(q)\n"
                "    else:\n"
                "        return _flex_attention(q, k, v)\n"
            ),
            "pkg/triton_kernel.py": (
                "import torch\n"
                "try:\n"
                "    import triton\n"
                "    import triton.language as tl\n"
                "    TRITON_AVAILABLE = True\n"
                "except ImportError:\n"
                "    TRITON_AVAILABLE = False\n"
                "\n"
                "if TRITON_AVAILABLE:\n"
                "\n"
                '    @triton.autotune(configs=[triton.Config({"BLOCK_M": 128})], key=["N"])\n'
                "    @triton.jit\n"
                "    def _fwd(q, o, N, BLOCK_M: tl.constexpr):\n"
                "        pass\n"
                "\n"
                "    def tree_attention_triton(q):\n"
                "        o = torch.empty_like(q)\n"
                "        _fwd[(1,)](q, o, q.shape[0])\n"
                "        return o\n"
                "\n"
                "    class TreeAttentionFunction(torch.autograd.Function):\n"
                "        @staticmethod\n"
                "        def forward(ctx, q):\n"
                "            return tree_attention_triton(q)\n"
                "\n"
                "        @staticmethod\n"
                "        def backward(ctx, dout):\n"
                "            return dout\n"
                "\n"
                "    def tree_attention(q):\n"
                "        return TreeAttentionFunction.apply(q)\n"
                "\n"
                "else:\n"
                "\n"
                "    def tree_attention(*args, **kwargs):\n"
                '        raise ImportError("Triton is not available.")\n'
            ),
        },
        "AREAL_USE_TRITON_TREE_ATTN",
        Role.UNKNOWN,
        "each value reaches a kernel of its own: unset, calls _flex_attention "
        "(pkg/module_fsdp.py:6) -> torch.compile at pkg/module_fsdp.py:6; "
        "AREAL_USE_TRITON_TREE_ATTN='1', calls tree_attention (pkg/triton_kernel.py:30) -> "
        "calls TreeAttentionFunction.forward (pkg/triton_kernel.py:23) -> calls "
        "tree_attention_triton (pkg/triton_kernel.py:16) -> calls _fwd (pkg/triton_kernel.py:13) "
        "-> triton.autotune at pkg/triton_kernel.py:11",
    ),
    (
        # torch 2.13.0 _subclasses/fake_tensor.py:2385 (TORCH_FAKE_TENSOR_DISPATCH_CACHE='0')
        # -> _utils.py:726 render_call -> overrides.py:1957 resolve_name -> :105
        # get_ignored_functions, a set of the functions ``__torch_function__`` leaves alone,
        # ``torch.cond`` among them (:320), whose body compiles: a function listed in a set
        # is a member to test against, not a call
        "a-function-listed-in-a-set-is-not-called",
        {
            "pkg/__init__.py": "",
            "pkg/kernels.py": KERNEL,
            "pkg/overrides.py": (
                "import functools\n\nfrom pkg.kernels import fused_rms_norm\n\n\n"
                "@functools.cache\n"
                "def get_ignored_functions():\n"
                "    return {len, fused_rms_norm}\n\n\n"
                "def resolve_name(f):\n"
                "    return f in get_ignored_functions()\n"
            ),
            "pkg/fake.py": (
                "import os\n\nfrom pkg.overrides import resolve_name\n\n"
                'cache_enabled = os.environ.get("X_DISPATCH_CACHE", "1") == "1"\n\n\n'
                "def dispatch(f, x):\n"
                "    if not cache_enabled:\n"
                "        resolve_name(f)\n"
                "    return f(x)\n"
            ),
        },
        "X_DISPATCH_CACHE",
        Role.UNKNOWN,
        "the name X_DISPATCH_CACHE says CACHE, a hint of a kernel choice, but no code it "
        "reaches shows one: words alone are not evidence",
    ),
    (
        "words-alone",
        {"m.py": 'import os\nA = os.environ.get("X_HC_TRITON", "1") != "0"\n'},
        "X_HC_TRITON",
        Role.UNKNOWN,
        "the name X_HC_TRITON says TRITON, a hint of a kernel choice, but no code it reaches "
        "shows one: words alone are not evidence",
    ),
    (
        "a-deterministic-word-alone",
        {"m.py": 'import os\nA = os.environ.get("X_DETERMINISTIC", "0") == "1"\n'},
        "X_DETERMINISTIC",
        Role.UNKNOWN,
        "the name X_DETERMINISTIC says DETERMINISTIC, a hint of the framework's deterministic "
        "mode, but no code it reaches shows one: words alone are not evidence",
    ),
    (
        "each-value-reaches-a-kernel",
        {
            "pkg/__init__.py": "",
            "pkg/kernels.py": KERNEL
            + "\n\n@triton.jit\ndef _split_kernel(x_ptr):\n    tl.store(x_ptr, 0)\n",
            "pkg/bwd.py": (
                "import os\n\nfrom pkg.kernels import _fwd_kernel, _split_kernel\n\n\n"
                "def bwd(x):\n"
                '    if os.getenv("X_BWD_USE_SPLIT", "1") == "1":\n'
                "        _split_kernel[(1,)](x)\n"
                "    else:\n"
                "        _fwd_kernel[(1,)](x, 0)\n"
            ),
        },
        "X_BWD_USE_SPLIT",
        Role.UNKNOWN,
        "each value reaches a kernel of its own: unset, calls _split_kernel (pkg/kernels.py:16) "
        "-> @triton.jit _split_kernel at pkg/kernels.py:16; X_BWD_USE_SPLIT='0', calls "
        "_fwd_kernel (pkg/kernels.py:6) -> @triton.jit _fwd_kernel at pkg/kernels.py:6",
    ),
    (
        "a-check-is-no-choice",
        {
            "pkg/__init__.py": "",
            "pkg/kernels.py": KERNEL,
            "pkg/layer.py": (
                "import os\n\nfrom pkg.kernels import fused_rms_norm\n\n\n"
                "def forward(x):\n"
                '    if os.environ.get("X_EXACT_SHAPES", "0") == "1":\n'
                '        raise ValueError("shapes")\n'
                "    return fused_rms_norm(x)\n"
            ),
        },
        "X_EXACT_SHAPES",
        Role.UNKNOWN,
        "nothing in its name, what it feeds or the functions that read it says what it controls",
    ),
    (
        "a-path-is-never-a-kernel-choice",
        {
            "pkg/__init__.py": "",
            "pkg/kernels.py": KERNEL,
            "pkg/sim.py": (
                "import os\n\nfrom pkg.kernels import fused_rms_norm\n\n\n"
                "def run(x):\n"
                '    dirs = os.environ.get("X_PROFILE_DIR")\n'
                "    if not dirs:\n"
                "        return fused_rms_norm(x)\n"
                "    return open(dirs).read()\n"
            ),
        },
        "X_PROFILE_DIR",
        Role.VALUE,
        "not a switch: the code uses its value",
    ),
    (
        "a-config-key-that-names-what-it-holds-is-a-value",
        {
            "conf/exp.yaml": "model:\n  exp_name: ${X_EXP_NAME:triton}\n",
            "pkg/__init__.py": "",
            "pkg/kernels.py": KERNEL,
            "pkg/run.py": (
                "from pkg.kernels import fused_rms_norm\n\n\n"
                "def run(config, x):\n"
                '    if config.exp_name == "triton":\n'
                "        return fused_rms_norm(x)\n"
                '    if config.exp_name == "eager":\n'
                "        return x\n"
                "    return x\n"
            ),
        },
        "X_EXP_NAME",
        Role.VALUE,
        "not a switch: the code uses its value",
    ),
    (
        # unsloth 2026.10.9, unsloth/utils/packing.py:385-397 and :648-651: `fn` is a local
        # bound by getattr and inspected; another function imports Mamba's kernel as `fn`.
        "another-function-s-import-is-not-this-local",
        {
            "pkg/__init__.py": "",
            "pkg/packing.py": (
                "import inspect\nimport os\n\n\n"
                "def names_param(module, param):\n"
                '    fn = getattr(type(module), "forward", None)\n'
                "    return fn is not None and param in inspect.signature(fn).parameters\n\n\n"
                "def fused():\n"
                "    from mamba_ssm.ops.triton.ssd_combined import (\n"
                "        mamba_split_conv1d_scan_combined as fn,\n"
                "    )\n"
                "    return fn\n\n\n"
                'if os.environ.get("X_QUIRKS", "0") != "1":\n'
                '    names_param(object(), "seq_idx")\n'
            ),
        },
        "X_QUIRKS",
        Role.UNKNOWN,
        "nothing in its name, what it feeds or the functions that read it says what it controls",
    ),
    (
        # unsloth_zoo 2026.10.9, temporary_patches/moe_utils_sonic.py:311-352: the pinned
        # side registers a custom op whose body calls the library, the tuned side calls the
        # library directly; registering an op is not a kernel.
        "a-custom-op-is-what-its-body-runs",
        {
            "pkg/__init__.py": "",
            "pkg/sonic.py": (
                "import os\n\nimport torch\n\n\n"
                "def _pinned_ops():\n"
                '    @torch.library.custom_op("pkg::gemm", mutates_args=())\n'
                "    def gemm_op(a: torch.Tensor) -> torch.Tensor:\n"
                "        return _pinned_gemm_eager(a)\n\n"
                "    return gemm_op\n\n\n"
                "def gemm(module, a):\n"
                '    tune = os.environ.get("X_SONIC_PINNED", "0") == "1"\n'
                "    if not tune:\n"
                "        return _pinned_ops()(a)\n"
                "    return module.functional.gemm(a, tuned=True)\n"
            ),
        },
        "X_SONIC_PINNED",
        Role.UNKNOWN,
        "what it feeds, tune says TUNE, a hint of a kernel choice, but no code it reaches "
        "shows one: words alone are not evidence",
    ),
    (
        # unsloth_zoo 2026.10.9, temporary_patches/fla_vendor.py:408-440,1395-1406: unset
        # patches the installed fla's kernel; '1' registers a vendored copy loaded from a
        # file, whose kernels the scan cannot see from here
        "a-module-loaded-at-run-time-may-be-kernels",
        {
            "pkg/__init__.py": "",
            "pkg/vendor.py": (
                "import importlib.util\nimport os\nimport sys\n\n\n"
                "def _inject(path):\n"
                '    spec = importlib.util.spec_from_file_location("fla", path)\n'
                "    module = importlib.util.module_from_spec(spec)\n"
                "    spec.loader.exec_module(module)\n"
                '    sys.modules["fla"] = module\n\n\n'
                "def _patch_installed():\n"
                "    from fla.ops.common.chunk_o import chunk_bwd_dqkwg\n\n"
                "    return chunk_bwd_dqkwg\n\n\n"
                "def install(path):\n"
                '    if os.environ.get("X_VENDORED", "0") != "1":\n'
                "        return _patch_installed()\n"
                "    return _inject(path)\n"
            ),
        },
        "X_VENDORED",
        Role.UNKNOWN,
        "unset, it runs the branch of `os.environ.get('X_VENDORED', '0') != '1'` at "
        "pkg/vendor.py:20, which reaches calls _patch_installed (pkg/vendor.py:13) -> "
        "flash-linear-attention (fla.ops.common.chunk_o.chunk_bwd_dqkwg) at pkg/vendor.py:16; "
        "X_VENDORED='1' runs code that loads a module at run time "
        "(.exec_module() at pkg/vendor.py:9): what it runs is not known",
    ),
    (
        # the same, as fla_vendor.py:1395-1406 has it: the load runs after an early return,
        # behind another guard
        "a-module-loaded-after-an-early-return",
        {
            "pkg/__init__.py": "",
            "pkg/vendor.py": (
                "import importlib.util\nimport os\n\n\n"
                "def _inject(path):\n"
                '    spec = importlib.util.spec_from_file_location("fla", path)\n'
                "    module = importlib.util.module_from_spec(spec)\n"
                "    spec.loader.exec_module(module)\n\n\n"
                "def _patch_installed():\n"
                "    from fla.ops.common.chunk_o import chunk_bwd_dqkwg\n\n"
                "    return chunk_bwd_dqkwg\n\n\n"
                "def install(path):\n"
                "    if not injected():\n"
                '        force = os.environ.get("X_VENDORED", "0") == "1"\n'
                "        if not force and newer_installed():\n"
                "            if not suspect_here():\n"
                "                return\n"
                "            if _patch_installed():\n"
                "                return\n"
                "        if not supported():\n"
                "            return\n"
                "        _inject(path)\n"
                "    patch_probe()\n"
            ),
        },
        "X_VENDORED",
        Role.UNKNOWN,
        "unset, it runs the branch of `not force and newer_installed()` at pkg/vendor.py:20, "
        "which reaches calls _patch_installed (pkg/vendor.py:11) -> flash-linear-attention "
        "(fla.ops.common.chunk_o.chunk_bwd_dqkwg) at pkg/vendor.py:14; X_VENDORED='1' runs "
        "code that loads a module at run time (.exec_module() at pkg/vendor.py:8): what it "
        "runs is not known",
    ),
    (
        # hiyouga/LLaMA-Factory ff6d4d1, src/llamafactory/launcher.py:59-131,182-185: '1' re-runs
        # the same file under torchrun in a process of its own, which the scan does not follow,
        # from either arm of an if/else
        "a-process-started-in-its-place-may-reach-the-kernel",
        {
            "pkg/__init__.py": "",
            "pkg/kernels.py": KERNEL,
            "pkg/train.py": (
                "from pkg.kernels import fused_rms_norm\n\n\n"
                "def run_exp(x):\n"
                "    return fused_rms_norm(x)\n"
            ),
            "pkg/launcher.py": (
                "import os\nimport subprocess\nimport sys\n\nfrom pkg.train import run_exp\n\n\n"
                "def launch(x):\n"
                '    command = sys.argv.pop(1) if len(sys.argv) > 1 else "help"\n'
                '    if command == "train" and os.environ.get("X_FORCE_TORCHRUN", "0") == "1":\n'
                '        if os.getenv("RDZV_ID") is not None:\n'
                '            process = subprocess.run(f"torchrun --rdzv {__file__}".split())\n'
                "        else:\n"
                '            process = subprocess.run(f"torchrun {__file__}".split())\n'
                "        sys.exit(process.returncode)\n"
                '    elif command == "train":\n'
                "        run_exp(x)\n\n\n"
                'if __name__ == "__main__":\n'
                "    from pkg.train import run_exp as run\n\n"
                "    run(None)\n"
            ),
        },
        "X_FORCE_TORCHRUN",
        Role.UNKNOWN,
        "nothing in its name, what it feeds or the functions that read it says what it controls",
    ),
    (
        # the same launcher, starting the program through the interpreter: which code the
        # process runs is not known here
        "a-process-that-runs-the-program-may-reach-the-kernel",
        {
            "pkg/__init__.py": "",
            "pkg/kernels.py": KERNEL,
            "pkg/train.py": (
                "from pkg.kernels import fused_rms_norm\n\n\n"
                "def run_exp(x):\n"
                "    return fused_rms_norm(x)\n"
            ),
            "pkg/launcher.py": (
                "import os\nimport subprocess\nimport sys\n\nfrom pkg.train import run_exp\n\n\n"
                "def launch(x):\n"
                '    if os.environ.get("X_RELAUNCH", "0") == "1":\n'
                '        cmd = [sys.executable, "-m", "pkg.cli", *sys.argv[1:]]\n'
                "        return subprocess.call(cmd)\n"
                "    run_exp(x)\n"
            ),
        },
        "X_RELAUNCH",
        Role.UNKNOWN,
        "unset, it runs the branch of `not (os.environ.get('X_RELAUNCH', '0') == '1')` at "
        "pkg/launcher.py:9, which reaches calls run_exp (pkg/train.py:4) -> calls "
        "fused_rms_norm (pkg/kernels.py:10) -> calls _fwd_kernel (pkg/kernels.py:6) -> "
        "@triton.jit _fwd_kernel at pkg/kernels.py:6; X_RELAUNCH='1' runs code that starts a "
        "process at run time (subprocess.call at pkg/launcher.py:11): what it runs is not known",
    ),
    (
        # sglang 0.5.23, kernels/jit/utils/arch.py:62: a process that only asks the machine
        # (its GPU's architecture) runs none of the program's code
        "a-process-that-asks-the-machine-runs-no-kernel",
        {
            "pkg/__init__.py": "",
            "pkg/kernels.py": KERNEL,
            "pkg/arch.py": (
                "import os\nimport subprocess\n\nfrom pkg.kernels import fused_rms_norm\n\n\n"
                "def forward(x):\n"
                '    if os.environ.get("X_PLAIN_NORM", "0") == "1":\n'
                "        if x.device is None:\n"
                '            subprocess.check_output(["nvidia-smi", "-L"])\n'
                "        else:\n"
                "            x = x * 2\n"
                "        return x\n"
                "    else:\n"
                "        return fused_rms_norm(x)\n"
            ),
        },
        "X_PLAIN_NORM",
        Role.KERNEL,
        "unset, it runs the branch of `not (os.environ.get('X_PLAIN_NORM', '0') == '1')` at "
        "pkg/arch.py:8, which reaches calls fused_rms_norm (pkg/kernels.py:10) -> calls "
        "_fwd_kernel (pkg/kernels.py:6) -> @triton.jit _fwd_kernel at pkg/kernels.py:6; "
        "X_PLAIN_NORM='1' leaves that branch, and what runs instead reaches no such kernel",
    ),
    (
        # hiyouga/LLaMA-Factory ff6d4d1, src/llamafactory/launcher.py:85-131: any value of
        # RDZV_ID takes the elastic launch, which runs the same training as the other arm;
        # the strings the function compares elsewhere are no choices of this variable
        "a-value-any-setting-takes-is-no-choice",
        {
            "pkg/__init__.py": "",
            "pkg/kernels.py": KERNEL,
            "pkg/train.py": (
                "from pkg.kernels import fused_rms_norm\n\n\n"
                "def run_exp(x):\n"
                "    if x.fp8:\n"
                "        return fused_rms_norm(x)\n"
                "    return x\n"
            ),
            "pkg/launcher.py": (
                "import os\n\nfrom pkg.train import run_exp\n\n\n"
                "def launch(x, command):\n"
                '    rdzv_id = os.getenv("X_RDZV_ID")\n'
                '    if command == "train":\n'
                "        if rdzv_id is not None:\n"
                "            x.elastic = True\n"
                "            run_exp(x)\n"
                "        else:\n"
                "            run_exp(x)\n"
                '    elif command == "api":\n'
                "        return x\n"
            ),
            "pkg/v1.py": (  # src/llamafactory/v1/launcher.py:70-115, another command's strings
                "import os\n\nfrom pkg.train import run_exp\n\n\n"
                "def launch(x, command):\n"
                '    rdzv_id = os.getenv("X_RDZV_ID")\n'
                '    if command == "train" or command == "merge":\n'
                "        if rdzv_id is not None:\n"
                "            x.elastic = True\n"
                "            run_exp(x)\n"
                "        else:\n"
                "            run_exp(x)\n"
            ),
        },
        "X_RDZV_ID",
        Role.VALUE,
        "not a switch: the code uses its value",
    ),
    (
        # Primus primus/backends/megatron/core/transformer/indexer.py:137-138: off by
        # default, "1" runs the QK in MXFP4; a launcher turns it on (the recipe's '0' would
        # undo that launcher's choice of precision).
        "an-opt-in-precision-is-for-a-person",
        {
            "pkg/__init__.py": "",
            "pkg/kernels.py": KERNEL,
            "pkg/indexer.py": (
                "import os\n\nimport torch\n\nfrom pkg.kernels import fused_rms_norm\n\n\n"
                "def score(x):\n"
                '    if os.environ.get("X_INDEXER_FP4", "0") == "1":\n'
                "        return fused_rms_norm(x)\n"
                "    return torch.matmul(x, x)\n"
            ),
        },
        "X_INDEXER_FP4",
        Role.UNKNOWN,
        "X_INDEXER_FP4='1' runs the branch of `os.environ.get('X_INDEXER_FP4', '0') == '1'` at "
        "pkg/indexer.py:9, which reaches calls fused_rms_norm (pkg/kernels.py:10) -> calls "
        "_fwd_kernel (pkg/kernels.py:6) -> @triton.jit _fwd_kernel at pkg/kernels.py:6; unset, "
        "it does not; but the name says FP4, what is computed, so the other value may change "
        "the result itself: a person must say",
    ),
    (
        # the side '0' leads to hands the weights to bitsandbytes' quantizer (unsloth's
        # UNSLOTH_MXFP4_KEEP_PACKED=0 "re-quantize[s] everything to bitsandbytes 4-bit",
        # models/compressed_tensors_bnb.py:202): no precision word in the name, the code says
        "a-side-that-re-quantizes-the-weights",
        {
            "pkg/__init__.py": "",
            "pkg/kernels.py": KERNEL,
            "pkg/load.py": (
                "import os\n\nimport bitsandbytes as bnb\n\n"
                "from pkg.kernels import fused_rms_norm\n\n\n"
                "def load(layer, w):\n"
                '    if os.environ.get("X_KEEP_PACKED", "1") != "0":\n'
                "        layer.forward = fused_rms_norm\n"
                "        return layer\n"
                "    layer.weight = bnb.functional.quantize_4bit(w)\n"
                "    return layer\n"
            ),
        },
        "X_KEEP_PACKED",
        Role.UNKNOWN,
        "unset, it runs the branch of `os.environ.get('X_KEEP_PACKED', '1') != '0'` at "
        "pkg/load.py:9, which reaches calls fused_rms_norm (pkg/kernels.py:10) -> calls "
        "_fwd_kernel (pkg/kernels.py:6) -> @triton.jit _fwd_kernel at pkg/kernels.py:6; "
        "X_KEEP_PACKED='0' runs the branch of `not (os.environ.get('X_KEEP_PACKED', '1') != "
        "'0')` at pkg/load.py:9, which reaches bitsandbytes.functional.quantize_4bit at "
        "pkg/load.py:12: a quantizer, so the value may change the weights themselves, not "
        "only the kernel: a person must say",
    ),
    (
        # ModelCloud/GPTQModel f4c327a1 gptqmodel/nn_modules/qlinear/torch.py:172, :318-321,
        # :349-398: unset, the eager forward dequantizes with a Triton kernel; '1' runs the
        # streaming forward, which dequantizes tiles on a side CUDA stream into reused buffers
        # (a race the code's waits leave open): no plain path, so no line turns it on
        "a-side-on-a-cuda-stream-of-its-own",
        {
            "pkg/__init__.py": "",
            "pkg/kernels.py": KERNEL,
            "pkg/linear.py": (
                "import os\n\nimport torch\n\nfrom pkg.kernels import fused_rms_norm\n\n\n"
                "class Linear:\n"
                "    def __init__(self):\n"
                '        self._streaming = bool(int(os.environ.get("X_STREAMING", "0")))\n\n'
                "    def forward(self, x):\n"
                "        if self._streaming:\n"
                "            return self._forward_streaming(x)\n"
                "        return fused_rms_norm(x)\n\n"
                "    def _forward_streaming(self, x):\n"
                "        side = torch.cuda.Stream()\n"
                "        with torch.cuda.stream(side):\n"
                "            w = x * 2\n"
                "        torch.cuda.current_stream().wait_stream(side)\n"
                "        return torch.matmul(x, w)\n"
            ),
        },
        "X_STREAMING",
        Role.UNKNOWN,
        "unset, it runs the branch of `not self._streaming` at pkg/linear.py:13, which "
        "reaches calls fused_rms_norm (pkg/kernels.py:10) -> calls _fwd_kernel "
        "(pkg/kernels.py:6) -> @triton.jit _fwd_kernel at pkg/kernels.py:6; "
        "X_STREAMING='1' runs the branch of `self._streaming` at pkg/linear.py:13, which "
        "reaches calls Linear._forward_streaming (pkg/linear.py:17) -> torch.cuda.Stream at "
        "pkg/linear.py:18: work on a CUDA stream of its own, whose order against the compute "
        "stream the code's waits decide, so what runs instead is no plain path: a person "
        "must say",
    ),
    (
        # sglang 0.5.23 srt/models/qwen2_moe.py:241-251: both sides call down_proj, whose
        # workspace makes a side stream (layers/communication/sp_collective_gemm_workspace.py:46);
        # only the fused side reaches FlashInfer's kernel: a stream both reach decides nothing
        "a-stream-both-sides-reach-is-no-side-of-its-own",
        {
            "pkg/__init__.py": "",
            "pkg/kernels.py": KERNEL,
            "pkg/mlp.py": (
                "import os\n\nimport torch\n\nfrom pkg.kernels import fused_rms_norm\n\n\n"
                "class Workspace:\n"
                "    def __init__(self):\n"
                "        self.stream = torch.cuda.Stream()\n\n\n"
                "def down_proj(x):\n"
                "    Workspace()\n"
                "    return x\n\n\n"
                "def forward(x):\n"
                '    if os.environ.get("X_DISABLE_FUSION", "0") != "1":\n'
                "        return down_proj(fused_rms_norm(x))\n"
                "    return down_proj(torch.relu(x))\n"
            ),
        },
        "X_DISABLE_FUSION",
        Role.KERNEL,
        "unset, it runs the branch of `os.environ.get('X_DISABLE_FUSION', '0') != '1'` at "
        "pkg/mlp.py:19, which reaches calls fused_rms_norm (pkg/kernels.py:10) -> calls "
        "_fwd_kernel (pkg/kernels.py:6) -> @triton.jit _fwd_kernel at pkg/kernels.py:6; "
        "X_DISABLE_FUSION='1' leaves that branch, and what runs instead reaches no such kernel",
    ),
    (
        # InternLM/xtuner b934f46 xtuner/v1/rl/trainer/worker.py:725-734: '1' returns what
        # the step logged so far, before the loss and every optimizer step: it skips the
        # work, it runs nothing in its place
        "an-early-return-of-what-was-there-before",
        {
            "pkg/__init__.py": "",
            "pkg/kernels.py": KERNEL,
            "pkg/worker.py": (
                "import os\n\nfrom pkg.kernels import fused_rms_norm\n\n\n"
                "def fit(log, x):\n"
                '    log["seen"] = 1\n'
                '    only_metrics = os.environ.get("X_ONLY_METRICS", "0") == "1"\n'
                "    if only_metrics:\n"
                "        release(x)\n"
                "        return log\n"
                '    log["loss"] = fused_rms_norm(x)\n'
                "    return log\n\n\n"
                "def release(x):\n"
                "    del x\n"
            ),
        },
        "X_ONLY_METRICS",
        Role.UNKNOWN,
        "unset, it runs the branch of `not only_metrics` at pkg/worker.py:9, which reaches "
        "calls fused_rms_norm (pkg/kernels.py:10) -> calls _fwd_kernel (pkg/kernels.py:6) -> "
        "@triton.jit _fwd_kernel at pkg/kernels.py:6; X_ONLY_METRICS='1' skips that branch "
        "and runs nothing in its place, so the work it does may be left undone: a person "
        "must say",
    ),
    (
        # unsloth_zoo 2026.10.9 temporary_patches/moe_grouped_fp16.py:504-510, :538: the early
        # side fills the output buffer the rest fills too, and both return it: it computes in
        # the rest's place
        "an-early-return-of-the-buffer-it-filled",
        {
            "pkg/__init__.py": "",
            "pkg/kernels.py": KERNEL,
            "pkg/gemm.py": (
                "import os\n\nimport torch\n\nfrom pkg.kernels import fused_rms_norm\n\n\n"
                "def gemm(a, out):\n"
                '    plain = os.environ.get("X_PLAIN_GEMM", "0") == "1"\n'
                "    if plain:\n"
                "        torch.mul(a, 2, out=out)\n"
                "        return out\n"
                "    out.copy_(fused_rms_norm(a))\n"
                "    return out\n"
            ),
        },
        "X_PLAIN_GEMM",
        Role.KERNEL,
        "unset, it runs the branch of `not plain` at pkg/gemm.py:10, which reaches calls "
        "fused_rms_norm (pkg/kernels.py:10) -> calls _fwd_kernel (pkg/kernels.py:6) -> "
        "@triton.jit _fwd_kernel at pkg/kernels.py:6; X_PLAIN_GEMM='1' leaves that branch, and "
        "what runs instead reaches no such kernel",
    ),
    (
        # the same shape where the early side returns a value of its own making: a plain
        # path in the kernel's place
        "an-early-return-of-its-own-result",
        {
            "pkg/__init__.py": "",
            "pkg/kernels.py": KERNEL,
            "pkg/worker.py": (
                "import os\n\nimport torch\n\nfrom pkg.kernels import fused_rms_norm\n\n\n"
                "def norm(x):\n"
                '    plain = os.environ.get("X_PLAIN_NORM", "0") == "1"\n'
                "    if plain:\n"
                "        y = torch.nn.functional.rms_norm(x, x.shape[-1:])\n"
                "        return y\n"
                "    return fused_rms_norm(x)\n"
            ),
        },
        "X_PLAIN_NORM",
        Role.KERNEL,
        "unset, it runs the branch of `not plain` at pkg/worker.py:10, which reaches calls "
        "fused_rms_norm (pkg/kernels.py:10) -> calls _fwd_kernel (pkg/kernels.py:6) -> "
        "@triton.jit _fwd_kernel at pkg/kernels.py:6; X_PLAIN_NORM='1' leaves that branch, and "
        "what runs instead reaches no such kernel",
    ),
    *(
        (
            f"a-precision-switch-in-a-quantizer-s-weight-loading-{how}",
            {"pkg/__init__.py": "", "pkg/kernels.py": KERNEL, "pkg/loading.py": code},
            "X_MXFP4_KEEP_PACKED",
            Role.UNKNOWN,
            f"unset, it runs the branch of `keep_packed()` at pkg/loading.py:{line}, which "
            "reaches calls fused_rms_norm "
            "(pkg/kernels.py:10) -> calls _fwd_kernel (pkg/kernels.py:6) -> @triton.jit "
            "_fwd_kernel at pkg/kernels.py:6; X_MXFP4_KEEP_PACKED='0' leaves that branch, and "
            "what runs instead reaches no such kernel; but it is tested in "
            f"{where}, a quantizer's weight-loading code: its value may change the weights "
            "themselves, not only the kernel: a person must say",
        )
        for how, code, line, where in (
            (
                "subclass",
                LOADER_SUBCLASS,
                14,
                "Loader._process_model_before_weight_loading (pkg/loading.py:13), a method of a "
                "subclass of transformers.quantizers.quantizer_bnb_4bit.Bnb4BitHfQuantizer",
            ),
            (
                "installed",
                LOADER_INSTALLED,
                16,
                "_process_model_before_weight_loading (pkg/loading.py:15), installed on "
                "transformers.quantizers.quantizer_compressed_tensors.CompressedTensorsHfQuantizer "
                "at pkg/loading.py:21",
            ),
        )
    ),
]


@pytest.mark.parametrize(
    ("files", "name", "role", "reason"),
    [c[1:] for c in NOT_EVIDENCE],
    ids=[c[0] for c in NOT_EVIDENCE],
)
def test_what_is_not_evidence(
    tmp_path: Path, files: dict[str, str], name: str, role: Role, reason: str
) -> None:
    knob = scanned_knob(tmp_path, files, name)
    assert (knob.role, knob.role_reason) == (role, reason)


# ROCm/aiter, aiter/rotary_embedding.py:43,162-168 -> forward_hip :276 (`import aiter as ops`),
# aiter/__init__.py:120 (`from .ops.rope import *`), aiter/ops/rope.py:197 (@compile_ops): a
# stub its JIT builds from HIP sources, reached through a package's star import; another
# method binds `ops` to another module.
ROPE = {
    "aiter/__init__.py": "from .ops.rope import *\n",
    "aiter/jit/__init__.py": "",
    "aiter/jit/core.py": "def compile_ops(name, develop=False):\n    return lambda f: f\n",
    "aiter/ops/__init__.py": "",
    "aiter/ops/rope.py": (
        "from ..jit.core import compile_ops\n\n\n"
        '@compile_ops("module_rope", develop=True)\n'
        "def rope_fwd(x):\n    ...\n"
    ),
    "aiter/ops/plain.py": "def rope_fwd(x):\n    return x\n",
    "aiter/rotary.py": (
        "import os\n\n"
        'X_ROPE_PLAIN = int(os.environ.get("X_ROPE_PLAIN", 0)) == 1\n\n\n'
        "class Rotary:\n"
        "    def forward(self, x):\n"
        "        if X_ROPE_PLAIN:\n"
        "            return self.forward_plain(x)\n"
        "        else:\n"
        "            return self.forward_hip(x)\n\n"
        "    def forward_plain(self, x):\n"
        "        import aiter.ops.plain as ops\n\n"
        "        return ops.rope_fwd(x)\n\n"
        "    def forward_hip(self, x):\n"
        "        import aiter as ops\n\n"
        "        return ops.rope_fwd(x)\n"
    ),
}

# ROCm/aiter, aiter/rotary_embedding.py:1785-1791: one class or another, each dispatching to
# kernels in its forward under tests of its own: no side is the plain one.
RIVALS = {
    "pkg/__init__.py": "",
    "pkg/kernels.py": KERNEL,
    "pkg/fused.py": (
        "import torch\n\n\n"
        "class FusedNormRope(torch.nn.Module):\n"
        "    def forward(self, x):\n"
        "        if x.is_cuda:\n"
        "            return torch.ops.pkg.fused_norm_rope(x)\n"
        "        return x\n"
    ),
    "pkg/rope.py": (
        "import os\n\nimport torch\n\nfrom pkg.fused import FusedNormRope\n"
        "from pkg.kernels import fused_rms_norm\n\n"
        'X_ROPE_NORM = os.environ.get("X_ROPE_NORM", "0") == "1"\n\n\n'
        "class Rope(torch.nn.Module):\n"
        "    def forward(self, x):\n"
        "        if x.is_cuda:\n"
        "            return fused_rms_norm(x)\n"
        "        return x\n\n\n"
        "def get_rope():\n"
        "    if X_ROPE_NORM:\n"
        "        rope = FusedNormRope()\n"
        "    else:\n"
        "        rope = Rope()\n"
        "    return rope\n"
    ),
}

# ROCm/aiter, aiter/mla.py:910-927: the other side calls `aiter.hk_mla_decode_fwd`, which no
# module of the tree defines (bound at run time): what it runs is not known.
ABSENT = {
    "aiter/__init__.py": "from .ops.attention import *\n",
    "aiter/kernels.py": KERNEL,
    "aiter/ops/__init__.py": "",
    "aiter/ops/attention.py": (
        "from aiter.kernels import fused_rms_norm\n\n\n"
        "def mla_decode_asm_fwd(q):\n    return fused_rms_norm(q)\n"
    ),
    "aiter/mla.py": (
        "import os\n\nimport aiter\nfrom aiter.ops.attention import mla_decode_asm_fwd\n\n\n"
        "def decode(q):\n"
        '    use_hk = os.environ.get("X_EXPERIMENTAL", "0") == "1"\n'
        "    if use_hk:\n"
        "        aiter.hk_mla_decode_fwd(q)\n"
        "    else:\n"
        "        mla_decode_asm_fwd(q)\n"
    ),
}

# vllm 0.33.0, vllm/distributed/device_communicators/cuda_communicator.py:70-72, 86, 133-137:
# a local computed from the variable, kept on the object, tested in a later statement.
KEPT_FLAG = {
    "pkg/__init__.py": "",
    "pkg/fi_ar.py": (
        "import flashinfer.comm as flashinfer_comm\n\n\n"
        "class FiAllReduce:\n"
        "    def __init__(self, group):\n"
        "        self.workspace = flashinfer_comm.create_allreduce_fusion_workspace(group)\n"
    ),
    "pkg/comm.py": (
        "import os\n\nfrom pkg.fi_ar import FiAllReduce\n\n"
        'X_AR_FI = os.getenv("X_AR_FI", "1") == "1"\n\n\n'
        "class Communicator:\n"
        "    def __init__(self, group, invariant):\n"
        "        self.world_size = group.size()\n"
        "        use_fi = X_AR_FI and not invariant\n"
        "        self.use_fi = use_fi\n"
        "        self.fi_comm = None\n"
        "        if self.use_fi and self.world_size > 1:\n"
        "            self.fi_comm = FiAllReduce(group)\n"
    ),
}

# vllm 0.33.0, cuda_communicator.py:117, 127-131 and symm_mem.py:148-152: an object made and
# kept where the variable says so, None otherwise, whose method the class calls later.
KEPT_OBJECT = {
    "pkg/__init__.py": "",
    "pkg/symm.py": (
        "import torch\n\n\n"
        "class SymmComm:\n"
        "    def __init__(self, group):\n"
        "        self.group = group\n\n"
        "    def all_reduce(self, x):\n"
        "        torch.ops.symm_mem.two_shot_all_reduce_(x, 'sum', self.group)\n"
        "        return x\n"
    ),
    "pkg/comm.py": (
        "import os\n\nimport torch\n\nfrom pkg.symm import SymmComm\n\n"
        'X_AR_SYMM = os.getenv("X_AR_SYMM", "1") == "1"\n\n\n'
        "class Communicator:\n"
        "    def __init__(self, group):\n"
        "        use_symm = X_AR_SYMM\n"
        "        self.symm_comm: SymmComm | None = None\n"
        "        if use_symm and torch.cuda.is_available():\n"
        "            self.symm_comm = SymmComm(group)\n\n"
        "    def all_reduce(self, x):\n"
        "        if self.symm_comm is not None:\n"
        "            return self.symm_comm.all_reduce(x)\n"
        "        torch.distributed.all_reduce(x)\n"
        "        return x\n"
    ),
}

# vllm 0.33.0, vllm/compilation/compiler_interface.py:769-776 (set_inductor_config), :507-519
# and :654-659 (compile_fx(..., config_patches=current_config)): the value set as Inductor's
# max_autotune option in a dict that is handed to Inductor.
INDUCTOR = {
    "pkg/__init__.py": "",
    "pkg/compiler.py": (
        "import os\n\n"
        'X_INDUCTOR_TUNE = os.getenv("X_INDUCTOR_TUNE", "1") == "1"\n\n\n'
        "def set_inductor_config(config, single):\n"
        "    if single:\n"
        '        config["max_autotune"] = X_INDUCTOR_TUNE\n\n\n'
        "def compile_graph(graph, inputs, compiler_config, single):\n"
        "    from torch._inductor.compile_fx import compile_fx\n\n"
        "    current_config = {}\n"
        "    current_config.update(compiler_config)\n"
        "    set_inductor_config(current_config, single)\n"
        "    return compile_fx(graph, inputs, config_patches=current_config)\n"
    ),
}

KEPT_AND_HANDED: list[tuple[str, dict[str, str], str, Role, Polarity, str]] = [
    (
        "a-jit-built-op-through-a-star-import",
        ROPE,
        "X_ROPE_PLAIN",
        Role.KERNEL,
        Polarity.DISABLE,
        "unset, it runs the branch of `not X_ROPE_PLAIN` at aiter/rotary.py:8, which reaches "
        "calls Rotary.forward_hip (aiter/rotary.py:18) -> calls rope_fwd "
        "(aiter/ops/rope.py:5) -> @aiter.jit.core.compile_ops rope_fwd at "
        "aiter/ops/rope.py:5; X_ROPE_PLAIN='1' leaves that branch, and what runs instead "
        "reaches no such kernel",
    ),
    (
        "each-side-may-reach-a-kernel-of-its-own",
        RIVALS,
        "X_ROPE_NORM",
        Role.KERNEL,
        Polarity.ENABLE,
        "X_ROPE_NORM='1' runs the branch of `X_ROPE_NORM` at pkg/rope.py:19, which reaches "
        "calls FusedNormRope (pkg/fused.py:4) -> calls FusedNormRope.forward (pkg/fused.py:5)"
        " -> torch.ops.pkg.fused_norm_rope at pkg/fused.py:7; unset, it does not",
    ),
    (
        "the-other-side-calls-what-the-tree-lacks",
        ABSENT,
        "X_EXPERIMENTAL",
        Role.UNKNOWN,
        Polarity.ENABLE,
        "unset, it runs the branch of `not use_hk` at aiter/mla.py:9, which reaches calls "
        "mla_decode_asm_fwd (aiter/ops/attention.py:4) -> calls fused_rms_norm "
        "(aiter/kernels.py:10) -> calls _fwd_kernel (aiter/kernels.py:6) -> @triton.jit "
        "_fwd_kernel at aiter/kernels.py:6; X_EXPERIMENTAL='1' runs code that calls "
        "aiter.hk_mla_decode_fwd (aiter/mla.py:10), which the tree does not define: what it "
        "runs is not known",
    ),
    (
        "a-local-kept-on-the-object",
        KEPT_FLAG,
        "X_AR_FI",
        Role.KERNEL,
        Polarity.ENABLE,
        "unset, it runs the branch of `self.use_fi and self.world_size > 1` at "
        "pkg/comm.py:14, which reaches calls FiAllReduce (pkg/fi_ar.py:4) -> calls "
        "FiAllReduce.__init__ (pkg/fi_ar.py:5) -> FlashInfer "
        "(flashinfer.comm.create_allreduce_fusion_workspace) at pkg/fi_ar.py:6; X_AR_FI='0' "
        "leaves that branch, and what runs instead reaches no such kernel",
    ),
    (
        "an-object-kept-or-none",
        KEPT_OBJECT,
        "X_AR_SYMM",
        Role.KERNEL,
        Polarity.ENABLE,
        "unset, it runs the branch of `use_symm and torch.cuda.is_available()` at "
        "pkg/comm.py:14, which reaches calls SymmComm, kept in self.symm_comm (None "
        "otherwise), and its all_reduce (pkg/symm.py:8) -> "
        "torch.ops.symm_mem.two_shot_all_reduce_ at pkg/symm.py:9; X_AR_SYMM='0' leaves that "
        "branch, and what runs instead reaches no such kernel",
    ),
    (
        "an-inductor-autotune-option",
        INDUCTOR,
        "X_INDUCTOR_TUNE",
        Role.KERNEL,
        Polarity.ENABLE,
        "unset, it runs `X_INDUCTOR_TUNE` at pkg/compiler.py:8, which reaches Inductor's "
        "max_autotune option (handed on as config_patches= at pkg/compiler.py:17) at "
        "pkg/compiler.py:8; X_INDUCTOR_TUNE='0' leaves that branch, and what runs instead "
        "reaches no such kernel",
    ),
]


@pytest.mark.parametrize(
    ("files", "name", "role", "polarity", "reason"),
    [c[1:] for c in KEPT_AND_HANDED],
    ids=[c[0] for c in KEPT_AND_HANDED],
)
def test_values_kept_and_handed_on(
    tmp_path: Path,
    files: dict[str, str],
    name: str,
    role: Role,
    polarity: Polarity,
    reason: str,
) -> None:
    knob = scanned_knob(tmp_path, files, name)
    assert (knob.role, knob.polarity, knob.role_reason) == (role, polarity, reason)


# Liger-Kernel 0.8.5, ops/cutile/ops/grpo_loss.py:361-378: a cuTile kernel's occupancy tuned
# per launch shape with cuda.tile.tune.exhaustive_search unless the variable is exactly "1",
# which pins one occupancy; the tuned kernel is launched by the caller with ct.launch.
TILE_TUNE = {
    "pkg/__init__.py": "",
    "pkg/grpo.py": (
        "import os\n\nimport cuda.tile as ct\n"
        "from cuda.tile.tune import exhaustive_search\n\n"
        "_CONFIGS = [1, 2, 4]\n_cache = {}\n\n\n"
        "@ct.kernel\n"
        "def _fwd_ct(x):\n"
        "    ct.store(x, 0)\n\n\n"
        "def _tuned(stream, key, grid, args):\n"
        '    if os.environ.get("X_NO_TILE_TUNE") == "1":\n'
        "        return _fwd_ct.replace_hints(occupancy=1)\n"
        "    if key not in _cache:\n"
        "        found = exhaustive_search(_CONFIGS, stream, grid, _fwd_ct, args)\n"
        "        _cache[key] = _fwd_ct.replace_hints(occupancy=found.best)\n"
        "    return _cache[key]\n\n\n"
        "def forward(stream, x):\n"
        "    kernel = _tuned(stream, x.shape, (1,), (x,))\n"
        "    ct.launch(stream, (1,), kernel, (x,))\n"
    ),
}

# Liger-Kernel 0.8.5, ops/cutile/ops/rms_norm.py:26 and :302-329: a policy read at module
# level and compared in the function that uses it: "auto"/"custom" reduce with a cuTile
# kernel (ct.launch), "torch" with torch's own sum, anything else raises.
TILE_CHOICE = {
    "pkg/__init__.py": "",
    "pkg/rms.py": (
        "import os\n\nimport cuda.tile as ct\nimport torch\n\n"
        '_POLICY = os.environ.get("X_DW_REDUCTION", "auto")\n\n\n'
        "@ct.kernel(occupancy=1)\n"
        "def _reduce_ct(partial, out):\n"
        "    ct.store(out, ct.load(partial))\n\n\n"
        "def backward(partial, weight):\n"
        '    if _POLICY in ("auto", "custom"):\n'
        "        dw = torch.empty_like(weight)\n"
        "        ct.launch(torch.cuda.current_stream(), (1,), _reduce_ct, (partial, dw))\n"
        '    elif _POLICY == "torch":\n'
        "        dw = partial.sum(dim=0)\n"
        "    else:\n"
        '        raise ValueError(f"Invalid policy: {_POLICY}")\n'
        "    return dw\n"
    ),
}

# torchtune 0.6.1, training/_compile.py:47-57 and :73-87: the value read into a local and
# handed as backend= to Module.compile and torch.compile; no branch decides anything.
COMPILE_BACKEND = {
    "pkg/__init__.py": "",
    "pkg/compile.py": (
        "import os\n\nimport torch\n\n\n"
        "def compile_model(model):\n"
        '    backend = os.environ.get("X_COMPILE_BACKEND", "inductor")\n'
        "    for m in reversed(list(model.modules())):\n"
        "        if isinstance(m, torch.nn.Linear):\n"
        "            m.compile(backend=backend)\n\n\n"
        "def compile_loss(loss):\n"
        '    backend = os.environ.get("X_COMPILE_BACKEND", "inductor")\n'
        "    return torch.compile(loss, backend=backend)\n"
    ),
}

# The same value kept in a module name and handed to torch._dynamo.optimize as its first
# argument (the backend).
COMPILE_BACKEND_GLOBAL = {
    "pkg/__init__.py": "",
    "pkg/run.py": (
        "import os\n\nimport torch._dynamo\n\n"
        '_BACKEND = os.environ.get("X_DYNAMO_BACKEND", "inductor")\n\n\n'
        "def optimized(fn):\n"
        "    return torch._dynamo.optimize(_BACKEND)(fn)\n"
    ),
}

# sglang, kernels/ops/attention/flash_mla_sm120.py:209 and :316-374: a backend read at module
# level, then a dispatch: "flashinfer" returns a library kernel, "triton" returns a Triton
# kernel, anything else falls through to torch. "0" fails both tests: it reaches no kernel,
# though the code after the first test holds the Triton call. Another site tests the value
# as a switch (srt/models/deepseek_v4.py:1224: `== "flashinfer"` picks the head count).
DISPATCH = {
    "pkg/__init__.py": "",
    "pkg/kernels.py": KERNEL,
    "pkg/mla.py": (
        "import os\n\nimport torch\n\n"
        '_BACKEND = os.environ.get("X_DECODE_BACKEND", "flashinfer")\n\n\n'
        "def _decode_flashinfer(q):\n"
        "    from flashinfer.mla import sparse_decode\n\n"
        "    out = q.new_empty(q.shape)\n"
        "    if q.numel():\n"
        "        sparse_decode(q, out)\n"
        "    return out\n\n\n"
        "def decode(q):\n"
        '    if _BACKEND == "flashinfer":\n'
        "        return _decode_flashinfer(q)\n"
        '    if _BACKEND == "triton":\n'
        "        from pkg.kernels import fused_rms_norm\n\n"
        "        return fused_rms_norm(q)\n"
        "    return torch.einsum('bh,bh->b', q, q)\n"
    ),
    "pkg/model.py": (
        "import os\n\n\n"
        "def num_heads(n):\n"
        '    if os.environ.get("X_DECODE_BACKEND", "flashinfer") == "flashinfer":\n'
        "        return n\n"
        "    return 64\n"
    ),
}

# ROCm/aiter, ops/triton/_triton_kernels/flash_attn_triton_amd/utils.py:121-126,152 and
# bwd.py:44-764: the switch read into "on"/"off" at module level, compared there, and handed
# to a config getter whose `elif mode == "on":` sits in the `else` of `if mode == "off":`;
# the last `else` (a sweep, configs built in a loop) runs for neither value.
ELIF = {
    "pkg/__init__.py": "",
    "pkg/utils.py": (
        "import os\n\n"
        "AUTOTUNE = (\n"
        '    "on"\n'
        '    if os.environ.get("X_ATTN_AUTOTUNE", "1").lower() in ("1", "true", "yes", "on")\n'
        '    else "off"\n'
        ")\n"
        'if AUTOTUNE != "off":\n'
        '    os.environ["TRITON_PRINT_AUTOTUNING"] = "1"\n'
    ),
    "pkg/bwd.py": (
        "import triton\n\nfrom pkg.utils import AUTOTUNE\n\n\n"
        "def get_configs(mode):\n"
        '    if mode == "off":\n'
        '        return [triton.Config({"B": 64}, num_warps=4)]\n'
        '    elif mode == "on":\n'
        "        return [\n"
        '            triton.Config({"B": 64}, num_warps=4),\n'
        '            triton.Config({"B": 128}, num_warps=8),\n'
        "        ]\n"
        "    else:\n"
        "        configs = []\n"
        "        for b in (16, 32):\n"
        '            configs.append(triton.Config({"B": b}, num_warps=4))\n'
        "        return configs\n\n\n"
        "CONFIGS = get_configs(AUTOTUNE)\n"
    ),
}

NEW_FORMS: list[tuple[str, dict[str, str], str, Role, Polarity, str | None, str]] = [
    (
        # transformers 5.25.0, utils/import_utils.py:97: availability probes import modules
        # by a computed name everywhere; that is no module loaded in the kernel's place
        "a-module-imported-by-name-is-no-unknown-code",
        {
            "pkg/__init__.py": "",
            "pkg/kernels.py": KERNEL,
            "pkg/linear.py": (
                "import importlib\nimport os\n\nfrom pkg.kernels import fused_rms_norm\n\n\n"
                "def _available(name):\n"
                "    return importlib.import_module(name) is not None\n\n\n"
                "def linear(x):\n"
                '    if os.environ.get("X_DISABLE_FUSED", "0") != "1":\n'
                "        return fused_rms_norm(x)\n"
                '    _available("scipy")\n'
                "    return x\n"
            ),
        },
        "X_DISABLE_FUSED",
        Role.KERNEL,
        Polarity.DISABLE,
        "0",
        "unset, it runs the branch of `os.environ.get('X_DISABLE_FUSED', '0') != '1'` at "
        "pkg/linear.py:12, which reaches calls fused_rms_norm (pkg/kernels.py:10) -> calls "
        "_fwd_kernel (pkg/kernels.py:6) -> @triton.jit _fwd_kernel at pkg/kernels.py:6; "
        "X_DISABLE_FUSED='1' leaves that branch, and what runs instead reaches no such kernel",
    ),
    (
        # unsloth_zoo 2026.10.9, temporary_patches/fla_vendor.py:1390-1406: '1' returns
        # early (a bare return: the patch skipped); the code after it (a kernel patch, then a
        # module loaded at run time) is what unset runs, not what runs in the kernel's place
        "the-code-after-the-value-s-own-early-return-is-the-unset-side",
        {
            "pkg/__init__.py": "",
            "pkg/kernels.py": KERNEL,
            "pkg/vendor.py": (
                "import importlib\nimport os\n\nfrom pkg.kernels import fused_rms_norm\n\n\n"
                "def install(name, x):\n"
                '    if os.environ.get("X_DISABLE_VENDORED", "0") == "1":\n'
                "        return\n"
                "    fused_rms_norm(x)\n"
                "    importlib.import_module(name)\n"
            ),
        },
        "X_DISABLE_VENDORED",
        Role.KERNEL,
        Polarity.DISABLE,
        "0",
        "unset, it runs the branch of `not (os.environ.get('X_DISABLE_VENDORED', '0') == '1')` "
        "at pkg/vendor.py:8, which reaches calls fused_rms_norm (pkg/kernels.py:10) -> calls "
        "_fwd_kernel (pkg/kernels.py:6) -> @triton.jit _fwd_kernel at pkg/kernels.py:6; "
        "X_DISABLE_VENDORED='1' leaves that branch, and what runs instead reaches no such kernel",
    ),
    (
        # axolotl 067b021c, integrations/kernels/libs/glm_dsa/dispatch.py:26-47,149: a
        # predicate returns False where the variable is set at all, and its callers' test
        # runs the Triton path
        "a-predicate-returning-early-where-the-variable-is-set",
        {
            "pkg/__init__.py": "",
            "pkg/kernels.py": KERNEL,
            "pkg/dispatch.py": (
                "import os\n\nimport torch\n\nfrom pkg.kernels import fused_rms_norm\n\n\n"
                "def _gather_supported(device):\n"
                '    if os.environ.get("X_DISABLE_GATHER"):\n'
                "        return False\n"
                "    return torch.cuda.get_device_capability(device) in ((9, 0), (12, 0))\n\n\n"
                "def attend(q):\n"
                "    if _gather_supported(q.device):\n"
                "        return fused_rms_norm(q)\n"
                "    return q\n"
            ),
        },
        "X_DISABLE_GATHER",
        Role.KERNEL,
        Polarity.DISABLE,
        "",
        "unset, it runs the branch of `_gather_supported(q.device)` at pkg/dispatch.py:15, "
        "which reaches calls fused_rms_norm (pkg/kernels.py:10) -> calls _fwd_kernel "
        "(pkg/kernels.py:6) -> @triton.jit _fwd_kernel at pkg/kernels.py:6; "
        "X_DISABLE_GATHER='1' leaves that branch, and what runs instead reaches no such kernel",
    ),
    (
        # axolotl 067b021c, monkeypatch/ring_attn/adapters/batch.py:131-147: the parameter
        # filled from the variable when the caller gives none, handed on as deterministic=
        # to a call whose result is bound, not returned
        "handed-on-as-deterministic-in-a-bound-call",
        {
            "pkg/__init__.py": "",
            "pkg/ring.py": (
                "import os\n\nfrom flash_attn import flash_attn_func\n\n\n"
                "def forward(q, deterministic=None):\n"
                "    if deterministic is None:\n"
                '        deterministic = os.environ.get("X_FA_DETERMINISTIC", "0") == "1"\n'
                "    out = flash_attn_func(q, q, q, deterministic=deterministic)\n"
                "    return out\n"
            ),
        },
        "X_FA_DETERMINISTIC",
        Role.DETERMINISM,
        Polarity.ENABLE,
        "0",
        "X_FA_DETERMINISTIC='1' makes `deterministic` at pkg/ring.py:9 true, and it is handed "
        "on as deterministic=: a call's deterministic mode",
    ),
    (
        # axolotl 067b021c, monkeypatch/ring_attn/patch.py:96-123: stored under the key
        # "deterministic" of the kwargs the call gets
        "stored-under-deterministic-in-a-call-s-kwargs",
        {
            "pkg/__init__.py": "",
            "pkg/ring.py": (
                "import os\n\nfrom flash_attn import flash_attn_func\n\n\n"
                "def forward(q, deterministic=None):\n"
                "    flash_kwargs = {}\n"
                "    if deterministic is None:\n"
                '        deterministic = os.environ.get("X_FA_DETERMINISTIC", "0") == "1"\n'
                '    flash_kwargs["deterministic"] = deterministic\n'
                "    out = flash_attn_func(q, q, q, **flash_kwargs)\n"
                "    return out\n"
            ),
        },
        "X_FA_DETERMINISTIC",
        Role.DETERMINISM,
        Polarity.ENABLE,
        "0",
        "X_FA_DETERMINISTIC='1' makes `deterministic` at pkg/ring.py:10 true, and it is handed "
        "on as deterministic=: a call's deterministic mode",
    ),
    (
        # unsloth_zoo 2026.10.9, fused_losses/preference_loss.py:409-419,517: the unfused side
        # is a custom op over chunked torch code (for torch.compile to trace), the plain path
        "a-custom-op-over-torch-code-is-the-plain-side",
        {
            "pkg/__init__.py": "",
            "pkg/kernels.py": KERNEL,
            "pkg/loss.py": (
                "import os\n\nimport torch\n\nfrom pkg.kernels import fused_rms_norm\n\n\n"
                '@torch.library.custom_op("pkg::logps", mutates_args=())\n'
                "def _logps_op(x: torch.Tensor) -> torch.Tensor:\n"
                "    return torch.log_softmax(x, -1)\n\n\n"
                "def loss(x):\n"
                '    if os.environ.get("X_FUSED_LINEAR", "1") == "1":\n'
                "        return fused_rms_norm(x)\n"
                "    return _logps_op(x)\n"
            ),
        },
        "X_FUSED_LINEAR",
        Role.KERNEL,
        Polarity.ENABLE,
        "0",
        "unset, it runs the branch of `os.environ.get('X_FUSED_LINEAR', '1') == '1'` at "
        "pkg/loss.py:14, which reaches calls fused_rms_norm (pkg/kernels.py:10) -> calls "
        "_fwd_kernel (pkg/kernels.py:6) -> @triton.jit _fwd_kernel at pkg/kernels.py:6; "
        "X_FUSED_LINEAR='0' leaves that branch, and what runs instead reaches no such kernel",
    ),
    (
        # an import in a function that declares the name global binds it for the module
        "a-global-bound-by-an-import-in-a-function",
        {
            "pkg/__init__.py": "",
            "pkg/attn.py": (
                "import os\n\nimport torch\n\n\n"
                "def load():\n"
                "    global fa\n"
                "    import flash_attn as fa\n\n\n"
                "def attend(q):\n"
                '    if os.environ.get("X_FA", "1") == "1":\n'
                "        return fa.flash_attn_func(q, q, q)\n"
                "    return torch.softmax(q, -1)\n"
            ),
        },
        "X_FA",
        Role.KERNEL,
        Polarity.ENABLE,
        "0",
        "unset, it runs the branch of `os.environ.get('X_FA', '1') == '1'` at pkg/attn.py:12, "
        "which reaches FlashAttention (flash_attn.flash_attn_func) at pkg/attn.py:13; "
        "X_FA='0' leaves that branch, and what runs instead reaches no such kernel",
    ),
    (
        "cutile-autotune",
        TILE_TUNE,
        "X_NO_TILE_TUNE",
        Role.KERNEL,
        Polarity.DISABLE,
        "0",
        "unset, it runs the branch of `not (os.environ.get('X_NO_TILE_TUNE') == '1')` at "
        "pkg/grpo.py:16, which reaches cuda.tile.tune.exhaustive_search at pkg/grpo.py:19; "
        "X_NO_TILE_TUNE='1' leaves that branch, and what runs instead reaches no such kernel",
    ),
    (
        "a-module-level-choice-compared-where-it-is-used",
        TILE_CHOICE,
        "X_DW_REDUCTION",
        Role.KERNEL,
        Polarity.ENABLE,
        "torch",
        "unset, it runs the branch of `_POLICY in ('auto', 'custom')` at pkg/rms.py:15, which "
        "reaches cuda.tile.launch at pkg/rms.py:17; X_DW_REDUCTION='torch' leaves that "
        "branch, and what runs instead reaches no such kernel",
    ),
    (
        "a-value-that-fails-every-test-of-a-dispatch",
        DISPATCH,
        "X_DECODE_BACKEND",
        Role.KERNEL,
        Polarity.ENABLE,
        "0",
        "unset, it runs the branch of `_BACKEND == 'flashinfer'` at pkg/mla.py:18, which "
        "reaches calls _decode_flashinfer (pkg/mla.py:8) -> FlashInfer "
        "(flashinfer.mla.sparse_decode) at pkg/mla.py:13; X_DECODE_BACKEND='0' leaves that "
        "branch, and what runs instead reaches no such kernel",
    ),
    (
        "an-elif-runs-only-where-the-if-around-it-fails",
        ELIF,
        "X_ATTN_AUTOTUNE",
        Role.KERNEL,
        Polarity.ENABLE,
        "0",
        "unset, it runs the branch of `not (mode == 'off')` at pkg/bwd.py:7, which reaches a "
        "list of triton.Config to tune over at pkg/bwd.py:10; X_ATTN_AUTOTUNE='0' leaves that "
        "branch, and what runs instead reaches no such kernel",
    ),
    (
        "a-value-handed-as-the-compile-backend",
        COMPILE_BACKEND,
        "X_COMPILE_BACKEND",
        Role.KERNEL,
        Polarity.ENABLE,
        "eager",
        "unset, its value 'inductor' (pkg/compile.py:7) is handed as the backend of "
        "torch.nn.Module.compile() at pkg/compile.py:10: a compiled path (Inductor generates "
        "and may tune Triton kernels); X_COMPILE_BACKEND='eager' runs the captured graph with "
        "torch's eager kernels",
    ),
    (
        "a-module-name-handed-to-dynamo-optimize",
        COMPILE_BACKEND_GLOBAL,
        "X_DYNAMO_BACKEND",
        Role.KERNEL,
        Polarity.ENABLE,
        "eager",
        "unset, its value 'inductor' (pkg/run.py:5) is handed as the backend of "
        "torch._dynamo.optimize at pkg/run.py:9: a compiled path (Inductor generates and may "
        "tune Triton kernels); X_DYNAMO_BACKEND='eager' runs the captured graph with torch's "
        "eager kernels",
    ),
    (
        "an-eager-backend-is-the-plain-path-already",
        {
            "pkg/__init__.py": "",
            "pkg/compile.py": COMPILE_BACKEND["pkg/compile.py"].replace('"inductor"', '"eager"'),
        },
        "X_COMPILE_BACKEND",
        Role.VALUE,
        Polarity.ENABLE,
        None,
        "not a switch: the code uses its value",
    ),
    (
        "a-backend-handed-to-no-compiler",
        {
            "pkg/__init__.py": "",
            "pkg/attn.py": (
                "import os\n\nfrom pkg.impl import attention\n\n\n"
                "def run(q):\n"
                '    backend = os.environ.get("X_ATTN_BACKEND", "inductor")\n'
                "    return attention(q, backend=backend)\n"
            ),
            "pkg/impl.py": "def attention(q, backend):\n    return q\n",
        },
        "X_ATTN_BACKEND",
        Role.VALUE,
        Polarity.ENABLE,
        None,
        "not a switch: the code uses its value",
    ),
    *(
        (
            # unsloth 2026.10.9 unsloth/models/llama.py:22,153,5383-5398: `from ..kernels
            # import *` binds apply_lora_qkv, which the branch installs on each layer
            # (`layer.self_attn.apply_qkv = apply_lora_qkv`); the other side keeps PEFT's.
            f"a-function-a-star-import-binds-{how}",
            {
                "pkg/__init__.py": "",
                "pkg/kernels/__init__.py": "from .fused import fused_rms_norm\n",
                "pkg/kernels/fused.py": KERNEL,
                "pkg/models/__init__.py": "",
                "pkg/models/llama.py": (
                    "import logging\nimport os\n\nfrom ..kernels import *\n\n\n"
                    "def patch(layer):\n"
                    '    if os.environ.get("X_FUSED_BIAS", "1") != "0":\n'
                    f"        {statement}\n"
                    "    else:\n"
                    '        logging.warning("cannot patch the layer")\n'
                ),
            },
            "X_FUSED_BIAS",
            Role.KERNEL,
            Polarity.ENABLE,
            "0",
            "unset, it runs the branch of `os.environ.get('X_FUSED_BIAS', '1') != '0'` at "
            "pkg/models/llama.py:8, which reaches calls fused_rms_norm "
            "(pkg/kernels/fused.py:10) -> calls _fwd_kernel (pkg/kernels/fused.py:6) -> "
            "@triton.jit _fwd_kernel at pkg/kernels/fused.py:6; X_FUSED_BIAS='0' leaves that "
            "branch, and what runs instead reaches no such kernel",
        )
        for how, statement in (
            ("installed", "layer.forward = fused_rms_norm"),
            ("called", "return fused_rms_norm(layer)"),
        )
    ),
    (
        # the same shape, where the function binds the name itself (a parameter): its own,
        # not the star-imported one
        "a-parameter-shadows-a-star-import",
        {
            "pkg/__init__.py": "",
            "pkg/kernels/__init__.py": "from .fused import fused_rms_norm\n",
            "pkg/kernels/fused.py": KERNEL,
            "pkg/models/__init__.py": "",
            "pkg/models/llama.py": (
                "import os\n\nfrom ..kernels import *\n\n\n"
                "def patch(layer, fused_rms_norm):\n"
                '    if os.environ.get("X_FUSED_BIAS", "1") != "0":\n'
                "        layer.forward = fused_rms_norm\n"
            ),
        },
        "X_FUSED_BIAS",
        Role.UNKNOWN,
        Polarity.ENABLE,
        "0",
        "the name X_FUSED_BIAS says FUSED, a hint of a kernel choice, but no code it reaches "
        "shows one: words alone are not evidence",
    ),
    (
        # sglang 0.5.23 srt/models/minimax_m3.py:472-477,697: the value kept on the object
        # picks the router's weight dtype and sends its GEMM to a Triton kernel
        "a-value-that-also-picks-a-dtype-is-for-a-person",
        {
            "pkg/__init__.py": "",
            "pkg/kernels.py": KERNEL,
            "pkg/router.py": (
                "import os\n\nimport torch\n\nfrom pkg.kernels import fused_rms_norm\n\n\n"
                "class Router:\n"
                "    def __init__(self):\n"
                '        self.bf16_gemm = os.environ.get("X_USE_BF16_ROUTER", "1") == "1"\n'
                "        self.dtype = torch.bfloat16 if self.bf16_gemm else torch.float32\n\n"
                "    def forward(self, x):\n"
                "        if self.bf16_gemm:\n"
                "            return fused_rms_norm(x)\n"
                "        return torch.matmul(x, x)\n"
            ),
        },
        "X_USE_BF16_ROUTER",
        Role.UNKNOWN,
        Polarity.ENABLE,
        "0",
        "unset, it runs the branch of `self.bf16_gemm` at pkg/router.py:14, which reaches calls "
        "fused_rms_norm (pkg/kernels.py:10) -> calls _fwd_kernel (pkg/kernels.py:6) -> "
        "@triton.jit _fwd_kernel at pkg/kernels.py:6; X_USE_BF16_ROUTER='0' leaves that "
        "branch, and what runs instead reaches no such kernel; but its value also picks the "
        "torch dtype at pkg/router.py:11: a precision choice, not only a kernel's: a person "
        "must say",
    ),
    (
        # unsloth_zoo 2026.10.9 temporary_patches/gpt_oss.py:532-556: '0' raises ImportError
        # inside a try whose `except Exception` goes on (the library off, as if absent), and
        # returns before the kernel patch: the caught raise is no check that stops the run
        "a-raise-its-own-try-catches-is-no-check",
        {
            "pkg/__init__.py": "",
            "pkg/kernels.py": KERNEL,
            "pkg/patch.py": (
                "import os\n\nfrom pkg.kernels import fused_rms_norm\n\n\n"
                "def convert(model):\n"
                "    try:\n"
                '        if os.environ.get("X_MATMUL_OGS", "1") == "0":\n'
                '            raise ImportError("X_MATMUL_OGS=0")\n'
                "        import json\n"
                "        has_kernels = True\n"
                "    except Exception:\n"
                "        has_kernels = False\n"
                '    if os.environ.get("X_MATMUL_OGS", "1") == "0":\n'
                "        model.dequantize = True\n"
                "        return\n"
                "    model.forward = fused_rms_norm\n"
            ),
        },
        "X_MATMUL_OGS",
        Role.KERNEL,
        Polarity.ENABLE,
        "0",
        "unset, it runs the branch of `not (os.environ.get('X_MATMUL_OGS', '1') == '0')` at "
        "pkg/patch.py:14, which reaches calls fused_rms_norm (pkg/kernels.py:10) -> calls "
        "_fwd_kernel (pkg/kernels.py:6) -> @triton.jit _fwd_kernel at pkg/kernels.py:6; "
        "X_MATMUL_OGS='0' leaves that branch, and what runs instead reaches no such kernel",
    ),
    (
        # the same shape, where the handler raises again: the check stops the run
        "a-raise-its-handler-raises-again-is-a-check",
        {
            "pkg/__init__.py": "",
            "pkg/kernels.py": KERNEL,
            "pkg/patch.py": (
                "import os\n\nfrom pkg.kernels import fused_rms_norm\n\n\n"
                "def convert(model):\n"
                "    try:\n"
                '        if os.environ.get("X_MATMUL_OGS", "1") == "0":\n'
                '            raise ImportError("X_MATMUL_OGS=0")\n'
                "        import json\n"
                "    except Exception:\n"
                "        raise\n"
                '    if os.environ.get("X_MATMUL_OGS", "1") == "0":\n'
                "        model.dequantize = True\n"
                "        return\n"
                "    model.forward = fused_rms_norm\n"
            ),
        },
        "X_MATMUL_OGS",
        Role.UNKNOWN,
        Polarity.ENABLE,
        "0",
        "nothing in its name, what it feeds or the functions that read it says what it controls",
    ),
]


# Transformer Engine 2.9.0 jax/cpp_extensions/base.py:57-91 (BasePrimitive.enabled, a
# classmethod that returns the switch), normalization.py:977 (`if not
# NormFwdPrimitive.enabled(): return _jax_layernorm(...)`, called through the subclass) and
# :991 (`NormFwdPrimitive.outer_primitive.bind(...)`, a primitive lowered by
# `ffi.ffi_lowering` at :275: a native custom call).
_JAX_BASE = (
    "import os\n\n\nclass BasePrimitive:\n"
    "    _is_enabled = True\n\n"
    "    @classmethod\n"
    "    def enabled(cls):\n"
    '        value = os.getenv("X_CUSTOM_CALLS")\n'
    "        if value is not None:\n"
    '            if value.lower() == "true":\n'
    "                return True\n"
    '            if value.lower() == "false":\n'
    "                return False\n"
    "        return cls._is_enabled\n"
)
_JAX_NORM = (
    "import jax.numpy as jnp\n"
    "from jax import ffi\n\n"
    "from pkg.cpp.base import BasePrimitive\n"
    "{imports}\n\n"
    "class NormFwdPrimitive(BasePrimitive):\n"
    '    name = "te_norm_forward_ffi"\n'
    "    outer_primitive = None\n\n"
    "    @staticmethod\n"
    "    def lowering(ctx, x, *, epsilon):\n"
    "        return ffi.ffi_lowering(NormFwdPrimitive.name)(ctx, x, epsilon=epsilon)\n\n\n"
    "def _jax_layernorm(x, epsilon):\n"
    "    mean = jnp.mean(x, axis=-1, keepdims=True)\n"
    "    {fallback}\n"
    "    return (x - mean) / jnp.sqrt(jnp.var(x, axis=-1, keepdims=True) + epsilon)\n\n\n"
    "def layernorm_fwd(x, epsilon):\n"
    "    if not NormFwdPrimitive.enabled():\n"
    "        return _jax_layernorm(x, epsilon)\n"
    "    return NormFwdPrimitive.outer_primitive.bind(x, epsilon=epsilon)\n"
)
_JAX_REASON = (
    "unset, it runs the branch of `NormFwdPrimitive.enabled()` at pkg/cpp/norm.py:23, which "
    "reaches a JAX FFI custom call (NormFwdPrimitive.outer_primitive.bind) at "
    "pkg/cpp/norm.py:25; X_CUSTOM_CALLS='false' leaves that branch, and what runs instead "
    "reaches no such kernel"
)
JAX_CASES = [
    (
        "jax-ffi-primitive-switched-by-an-inherited-classmethod",
        {
            "pkg/__init__.py": "",
            "pkg/cpp/__init__.py": "",
            "pkg/cpp/base.py": _JAX_BASE,
            "pkg/cpp/norm.py": _JAX_NORM.format(imports="", fallback="del mean"),
        },
        "X_CUSTOM_CALLS",
        Role.KERNEL,
        Polarity.ENABLE,
        "false",
        _JAX_REASON,
    ),
    # jax/quantize/__init__.py:15 (`from .scaling_modes import *`): the plain path names
    # `ScalingMode.NO_SCALING` through the package, which binds it by a star import only.
    (
        "jax-ffi-primitive-fallback-names-a-star-imported-enum",
        {
            "pkg/__init__.py": "",
            "pkg/cpp/__init__.py": "",
            "pkg/cpp/base.py": _JAX_BASE,
            "pkg/quantize/__init__.py": "from .scaling_modes import *\n",
            "pkg/quantize/scaling_modes.py": (
                "from enum import Enum\n\n\nclass ScalingMode(Enum):\n    NO_SCALING = 0\n"
            ),
            "pkg/cpp/norm.py": _JAX_NORM.format(
                imports="from pkg.quantize import ScalingMode\n",
                fallback="mode = ScalingMode.NO_SCALING.value",
            ),
        },
        "X_CUSTOM_CALLS",
        Role.KERNEL,
        Polarity.ENABLE,
        "false",
        _JAX_REASON.replace("norm.py:23", "norm.py:24").replace("norm.py:25", "norm.py:26"),
    ),
]


@pytest.mark.parametrize(
    ("files", "name", "role", "polarity", "off", "reason"),
    [c[1:] for c in (*CASES, *NEW_FORMS, *JAX_CASES)],
    ids=[c[0] for c in (*CASES, *NEW_FORMS, *JAX_CASES)],
)
def test_role_from_code(
    tmp_path: Path,
    files: dict[str, str],
    name: str,
    role: Role,
    polarity: Polarity,
    off: str | None,
    reason: str,
) -> None:
    knob = scanned_knob(tmp_path, files, name)
    assert role_facts(knob) == (role, polarity, off, reason)


def test_a_primitive_lowered_to_jax_ops_is_no_kernel(tmp_path: Path) -> None:
    """The same switch, where the primitive lowers to JAX's own ops (``mlir.lower_fun``),
    not to a native custom call: ``bind`` is no kernel, and the role stays unknown."""
    norm = _JAX_NORM.format(imports="", fallback="del mean").replace(
        "ffi.ffi_lowering(NormFwdPrimitive.name)", "mlir.lower_fun(_jax_layernorm)"
    )
    files = {
        "pkg/__init__.py": "",
        "pkg/cpp/__init__.py": "",
        "pkg/cpp/base.py": _JAX_BASE,
        "pkg/cpp/norm.py": norm.replace("from jax import ffi", "from jax.interpreters import mlir"),
    }
    knob = scanned_knob(tmp_path, files, "X_CUSTOM_CALLS")
    assert (knob.role, knob.role_reason) == (
        Role.UNKNOWN,
        "nothing in its name, what it feeds or the functions that read it says what it controls",
    )


# sglang 0.5.23 srt/layers/muse_spark/muse_spark_megamoe.py:23, :333-359: the tree hands a
# tile spec to DeepGEMM through DG_MEGA_MOE_TILES, writing it itself with the value it
# computes, and tests it for presence only to let a user's spec win.
CHANNEL = {
    "pkg/moe.py": """\
import contextlib
import functools
import os

_TILES_ENV = "X_MOE_TILES"


@functools.lru_cache(maxsize=4096)
def _heuristic_block_m(num_ranks, num_tokens):
    import deep_gemm

    return deep_gemm.get_block_m_for_mega_moe(num_ranks=num_ranks, num_tokens=num_tokens)


def _tile_override(buf, num_tokens):
    if buf.mma_type != "bf16xbf16" or os.environ.get(_TILES_ENV):
        # A user-provided tile spec always wins.
        return None
    block_m = _heuristic_block_m(buf.group.size(), num_tokens)
    return "192x256" if block_m == 192 else None


@contextlib.contextmanager
def _tiles(tiles):
    os.environ[_TILES_ENV] = tiles
    try:
        yield
    finally:
        os.environ[_TILES_ENV] = ""
""",
}


def test_a_variable_the_tree_writes_with_its_own_value_is_no_switch(tmp_path: Path) -> None:
    """Its presence test reaches a kernel, but any on value a recipe wrote ('1') would be
    read as the value the tree hands on: unknown, with the write."""
    knob = scanned_knob(tmp_path, CHANNEL, "X_MOE_TILES")
    assert knob.role is Role.UNKNOWN
    assert knob.role_reason is not None
    assert knob.role_reason.endswith(
        "; but the tree writes X_MOE_TILES itself with a value it computes (pkg/moe.py:25): "
        "it hands a value on through the environment, which a switch's value would replace: "
        "a person must say"
    ), knob.role_reason
    assert knob.role_reason.startswith("unset, it runs the branch of"), knob.role_reason


# kvcache-ai/ktransformers 95009ea archive/ktransformers/operators/ascend/ascend_attention.py:
# 123-135, :208-285: the gate reads every value but "0" as on; a later test sends "1" to two
# other fused kernels, and only another value to the torch path. The recipe writes the value
# the branches were followed with, not the gate's "1".
MERGE = {
    "pkg/__init__.py": "",
    "pkg/kernels.py": KERNEL,
    "pkg/attention.py": (
        "import os\n\nimport torch\n\nfrom pkg.kernels import fused_rms_norm\n\n\n"
        "class Attention:\n"
        "    def __init__(self):\n"
        '        self.use_merge = os.getenv("USE_MERGE", "0")\n\n'
        "    def forward(self, q, k):\n"
        '        if self.use_merge == "0":\n'
        "            return fused_rms_norm(q)\n"
        '        if self.use_merge == "1":\n'
        "            return fused_rms_norm(k)\n"
        "        return torch.matmul(q, k)\n"
    ),
}


def test_the_value_written_is_the_one_the_branches_were_followed_with(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    knob = scanned_knob(tmp_path, MERGE, "USE_MERGE")
    assert (knob.role, knob.polarity, knob.on_value) == (Role.KERNEL, Polarity.DISABLE, "true")
    assert knob.role_reason == (
        "unset, it runs the branch of `self.use_merge == '0'` at pkg/attention.py:13, which "
        "reaches calls fused_rms_norm (pkg/kernels.py:10) -> calls _fwd_kernel "
        "(pkg/kernels.py:6) -> @triton.jit _fwd_kernel at pkg/kernels.py:6; USE_MERGE='true' "
        "leaves that branch, and what runs instead reaches no such kernel"
    )
    assert "export USE_MERGE='true'" in bitwise_exports(tmp_path, monkeypatch)
