"""Trainer config keys whose meaning the trainer (or the inference engine it starts for
rollouts) documents: a fused kernel, a CUDA graph, its deterministic mode. Data with a source
for each entry, like the catalogue.

A launcher variable that lands in one of these keys (``gradient_accumulation_fusion:
${X:true}``, ``--no-gradient-accumulation-fusion``) is read by the trainer's code, which is
not in the tree: the trainer's own documentation of the key is the evidence of what the
variable switches. Each entry cites the field's docstring in the trainer's package.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from types import MappingProxyType
from typing import Final

from scanner.model import Role

_MCORE = "megatron-core 0.16.1"
_PARALLEL = "megatron/core/model_parallel_config.py"
_TRANSFORMER = "megatron/core/transformer/transformer_config.py"


@dataclass(frozen=True, slots=True)
class TrainerKey:
    """A config key the trainer documents as a kernel choice or its deterministic mode."""

    key: str
    role: Role
    meaning: str
    source: str  # the trainer's package and the field's file:line
    # For a key that names an implementation, the value that runs none (``none``, or the
    # plain PyTorch path: ``unfused``) and the trainer's own value when the key is not given;
    # None for a boolean key.
    off: str | None = None
    default: str | None = None
    # Every value the key takes (the enum's names): a launcher value whose default is none of
    # them is handed to another program's key of the same name.
    values: tuple[str, ...] = ()
    # A boolean key whose True runs none of the kernels (vLLM's ``enforce_eager``).
    inverted: bool = False


def _mcore(
    key: str,
    role: Role,
    meaning: str,
    path: str,
    line: int,
    off: str | None = None,
    default: str | None = None,
    values: tuple[str, ...] = (),
) -> TrainerKey:
    return TrainerKey(key, role, meaning, f"{_MCORE} {path}:{line}", off, default, values)


KEYS: Final[Mapping[str, TrainerKey]] = MappingProxyType(
    {
        k.key: k
        for k in (
            _mcore(
                "deterministic_mode",
                Role.DETERMINISM,
                "code that has deterministic execution is chosen",
                _PARALLEL,
                147,
            ),
            _mcore(
                "gradient_accumulation_fusion",
                Role.KERNEL,
                "weight-gradient accumulation fused into the GEMMs "
                "(Apex's fused_weight_gradient_mlp_cuda)",
                _PARALLEL,
                168,
            ),
            _mcore(
                "cross_entropy_loss_fusion",
                Role.KERNEL,
                "the fused cross-entropy implementation",
                _PARALLEL,
                241,
            ),
            _mcore(
                "bias_activation_fusion",
                Role.KERNEL,
                "bias addition fused with the activation function",
                _TRANSFORMER,
                354,
            ),
            _mcore("masked_softmax_fusion", Role.KERNEL, "softmax fusion", _TRANSFORMER, 357),
            _mcore(
                "persist_layer_norm",
                Role.KERNEL,
                "the persistent fused layer-norm kernel",
                _TRANSFORMER,
                360,
            ),
            _mcore("bias_dropout_fusion", Role.KERNEL, "bias-dropout fusion", _TRANSFORMER, 368),
            _mcore("apply_rope_fusion", Role.KERNEL, "the fused RoPE kernel", _TRANSFORMER, 371),
            _mcore(
                "moe_grouped_gemm",
                Role.KERNEL,
                "the experts' GEMMs in one grouped-GEMM kernel launch",
                _TRANSFORMER,
                649,
            ),
            _mcore(
                "moe_permute_fusion",
                Role.KERNEL,
                "token rearrangement fused during dispatching",
                _TRANSFORMER,
                708,
            ),
            _mcore(
                "moe_router_fusion",
                Role.KERNEL,
                "MoE top-k routing and aux-loss fused",
                _TRANSFORMER,
                711,
            ),
            _mcore(
                "enable_cuda_graph",
                Role.KERNEL,
                "CUDA graph capture of the layers or the iteration",
                _TRANSFORMER,
                751,
            ),
            _mcore(
                "cuda_graph_impl",
                Role.KERNEL,
                "the CUDA graph capture implementation (none: no CUDA graph; local or "
                "transformer_engine: captured)",
                _TRANSFORMER,
                776,
                off="none",
                default="none",
                values=("none", "local", "transformer_engine"),
            ),
            # Handed by RL trainers to the vLLM engine they start for rollouts (SkyRL
            # a9564572 skyrl/backends/skyrl_train/inference_servers/utils.py:96).
            TrainerKey(
                "enforce_eager",
                Role.KERNEL,
                "always eager PyTorch: True disables CUDA graphs and torch.compile, False "
                "captures CUDA graphs",
                "vllm 0.33.0 vllm/config/model.py:276-282",
                inverted=True,
            ),
            # The field (transformer_config.py:110, AttnBackend in transformer/enums.py:60-67)
            # is acted on by LanguageModule._set_attention_backend (language_module.py:92-126):
            # "unfused" writes NVTE_FLASH_ATTN=0, NVTE_FUSED_ATTN=0, NVTE_UNFUSED_ATTN=1, so
            # Transformer Engine runs its UnfusedDotProductAttention (bmm and softmax); "auto"
            # leaves TE to pick flash-attn or cuDNN fused attention.
            _mcore(
                "attention_backend",
                Role.KERNEL,
                "the attention implementation (auto: Transformer Engine picks flash-attn or "
                "cuDNN fused attention; unfused: NVTE_FLASH_ATTN=0 and NVTE_FUSED_ATTN=0 "
                "written at language_module.py:119-122, TE's plain bmm and softmax)",
                _TRANSFORMER,
                110,
                off="unfused",
                default="auto",
                values=("flash", "fused", "unfused", "local", "auto"),
            ),
        )
    }
)


def trainer_key(key: str | None) -> TrainerKey | None:
    """The documented meaning of config key ``key``, or None."""
    return KEYS.get(key) if key is not None else None
