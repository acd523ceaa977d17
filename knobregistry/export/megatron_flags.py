"""How a megatron-core config field is set on Megatron-LM's command line.

The megatron-core wheel does not ship Megatron-LM's argument parser
(`megatron/training/arguments.py`), so flags are derived from the field name by
the parser's own convention: `ArgumentGroupFactory._format_arg_name` turns
underscores into dashes; a boolean field whose default is false becomes a
`store_true` flag (`--deterministic-mode`), one whose default is true a
`store_false` pair (`--no-NAME`, `--disable-NAME`). The hand-written arguments
that break the convention are kept in the tables below, read from
NVIDIA/Megatron-LM `megatron/training/arguments.py` and
`megatron/core/transformer/transformer_config.py` (`argparse_meta`) at commit
d98e8a64ddf3 (2026-08-22). A flag found in neither table is derived, and says so.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from enum import Enum

# Fields set false by a hand-written `store_false` flag whose argparse default is
# true (most are in arguments.py's "incompatible defaults in dataclass" list):
# true is Megatron-LM's default, false is this flag.
NEGATIVE: dict[str, str] = {
    "add_bias_linear": "--disable-bias-linear",
    "align_param_gather": "--no-align-param-gather",
    "apply_rope_fusion": "--no-rope-fusion",
    "barrier_with_L1_time": "--no-barrier-with-level-1-timing",
    "bias_dropout_fusion": "--no-bias-dropout-fusion",
    "gradient_accumulation_fusion": "--no-gradient-accumulation-fusion",
    "gradient_reduce_div_fusion": "--no-gradient-reduce-div-fusion",
    "masked_softmax_fusion": "--no-masked-softmax-fusion",
    "overlap_p2p_comm": "--no-overlap-p2p-communication",
    "perform_initialization": "--no-initialization",
    "persist_layer_norm": "--no-persist-layer-norm",
    "pin_cpu_grads": "--no-pin-cpu-grads",
    "pin_cpu_params": "--no-pin-cpu-params",
    "use_mamba_mem_eff_path": "--disable-mamba-mem-eff-path",
}

# Fields whose flag is not the field name with dashes (a value flag, or the
# `store_true` flag of a boolean).
RENAMED: dict[str, str] = {
    "attention_softmax_in_fp32": "--attention-softmax-in-fp32",
    "fp4": "--fp4-format",
    "fp4_param": "--fp4-param-gather",
    "fp8": "--fp8-format",
    "fp8_param": "--fp8-param-gather",
    "layernorm_epsilon": "--norm-epsilon",
    "layernorm_zero_centered_gamma": "--apply-layernorm-1p",
    "microbatch_group_size_per_vp_stage": "--microbatch-group-size-per-virtual-pipeline-stage",
    "num_moe_experts": "--num-experts",
    "overlap_p2p_comm_warmup_flush": "--overlap-p2p-communication-warmup-flush",
    "use_te_rng_tracker": "--te-rng-tracker",
}

# Fields Megatron-LM computes from other arguments: no flag sets them alone.
NO_FLAG: dict[str, str] = {
    "activation_func": "Megatron-LM picks it from --swiglu, --squared-relu, --quick-geglu",
    "bias_activation_fusion": (
        "Megatron-LM sets it from --no-bias-gelu-fusion / --no-bias-swiglu-fusion"
    ),
    "check_for_nan_in_grad": "Megatron-LM sets it from --no-check-for-nan-in-loss-and-grad",
    "gated_linear_unit": "Megatron-LM sets it from --swiglu",
    "params_dtype": "Megatron-LM sets it from --fp16 / --bf16",
}

_FIELD = re.compile(r"[A-Za-z_][A-Za-z0-9_]*\Z")
FLAG = re.compile(r"--[A-Za-z0-9][A-Za-z0-9_.-]*\Z")


class Origin(str, Enum):
    """Where a flag comes from, from surest to least sure."""

    REGISTRY = "registry"  # the key's `argument:` in the registry
    TABLE = "table"  # the tables above, read from Megatron-LM's parser
    CONVENTION = "convention"  # derived from the field name


@dataclass(frozen=True, slots=True, kw_only=True)
class Flag:
    """One flag (and its values, unquoted) for the command line."""

    key: str
    flag: str
    values: tuple[str, ...]
    origin: Origin


@dataclass(frozen=True, slots=True)
class Skipped:
    """A key the command line does not carry, and why (a sentence fragment)."""

    key: str
    why: str


def dashed(name: str) -> str:
    """`deterministic_mode` -> `--deterministic-mode`, as Megatron-LM names its flags."""
    return "--" + name.replace("_", "-")


def valid_field(name: str) -> bool:
    """Whether ``name`` can be a Megatron-LM argument name (an identifier)."""
    return _FIELD.match(name) is not None


def boolean(key: str, value: bool, argument: str | None, default: object) -> Flag | Skipped:
    """The flag that sets boolean ``key`` to ``value``, or why none does.

    ``argument`` is the registry's `argument:` (a `--no-...` or `--disable-...` one
    sets false); ``default`` the registry's default (None when it records none).
    """
    negative = _known(key, argument, negative=True)
    positive = _known(key, argument, negative=False)
    if value:
        if positive is not None:
            return Flag(key=key, flag=positive[0], values=(), origin=positive[1])
        if negative is not None:
            return Skipped(key, f"true is Megatron-LM's default ({negative[0]} sets false)")
        if default is True:
            return Skipped(key, f"true is its default; {dashed('no_' + key)} would set false")
        return Flag(key=key, flag=dashed(key), values=(), origin=Origin.CONVENTION)
    if negative is not None:
        return Flag(key=key, flag=negative[0], values=(), origin=negative[1])
    flag = positive[0] if positive is not None else dashed(key)
    if default is True:
        return Flag(key=key, flag=dashed("no_" + key), values=(), origin=Origin.CONVENTION)
    if default is False:
        return Skipped(
            key,
            f"false is its default and Megatron-LM defines no negative form of {flag} "
            "(store_true); leave that flag out of the command line",
        )
    return Skipped(
        key,
        f"uncertain: the registry records no default, and {flag} is taken to be a store_true "
        f"flag with no negative form; leave it out, or if Megatron-LM defines "
        f"{dashed('no_' + key)}, record that as the key's `argument:`",
    )


def _known(key: str, argument: str | None, *, negative: bool) -> tuple[str, Origin] | None:
    """The registry's or the tables' flag that sets ``key`` false (or true), if any."""
    if argument is not None and argument.startswith(("--no-", "--disable-")) == negative:
        return argument, Origin.REGISTRY
    table = NEGATIVE if negative else RENAMED
    return (table[key], Origin.TABLE) if key in table else None
