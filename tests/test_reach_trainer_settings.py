"""A launcher value handed to a trainer setting whose values the trainer documents
(scanner/reach/trainer_keys.py): as a Hydra or OmegaConf override ``model.KEY="${X}"``
(scanner/launcher/config_verdict.override_key) or as a flag ``--key ${X}``. A key that names an
implementation gives the value that runs none of its kernels; an override of a setting the table
does not hold is unknown.

Each case is a small launcher on disk in the shape of the real one it stands for."""

from __future__ import annotations

from pathlib import Path

import pytest

from scanner import Role
from tests.scanned import scanned_knob

# NVIDIA-NeMo/Megatron-Bridge examples/models/qwen/qwen3_omni/local_train_thinker_full.sh:62-63
# (the defaults), :110-128 (a preset's arm that sets the variable itself), :265-290 (the command
# as an array of Hydra overrides, run as "${CMD[@]}").
THINKER = """\
#!/usr/bin/env bash
MULTIMODAL_ATTN_IMPL=${MULTIMODAL_ATTN_IMPL:-auto}
ATTENTION_BACKEND=${ATTENTION_BACKEND:-auto}
LR_WARMUP=${LR_WARMUP:-null}

PRESET=${PRESET:-}
if [[ "${PRESET}" == "4node_tp2_ep8_sp" ]]; then
    MULTIMODAL_ATTN_IMPL=auto
    ATTENTION_BACKEND=flash
fi

CMD=(
    torchrun
    "${ROOT_DIR}/scripts/training/run_recipe.py"
    --recipe "${RECIPE}"
    model.multimodal_attn_impl="${MULTIMODAL_ATTN_IMPL}"
    model.attention_backend="${ATTENTION_BACKEND}"
    scheduler.lr_warmup_iters="${LR_WARMUP}"
)
"${CMD[@]}"
"""

DOCUMENTED = (
    "megatron-core 0.16.1 megatron/core/transformer/transformer_config.py:110 documents as the "
    "attention implementation (auto: Transformer Engine picks flash-attn or cuDNN fused "
    "attention; unfused: NVTE_FLASH_ATTN=0 and NVTE_FUSED_ATTN=0 written at "
    "language_module.py:119-122, TE's plain bmm and softmax); 'unfused' runs none of its kernels"
)


def test_an_override_of_a_documented_implementation_key_is_a_kernel_choice(
    tmp_path: Path,
) -> None:
    knob = scanned_knob(tmp_path, {"train.sh": THINKER}, "ATTENTION_BACKEND")
    assert (knob.role, knob.default_on, knob.off_value) == (Role.KERNEL, True, "unfused")
    assert [s.override for s in knob.sites] == [None, "model.attention_backend"]
    assert knob.sites[1].target == "CMD"  # the verdict still sees the array it lands in
    assert knob.role_reason == (
        "it hands 'auto' to the config key attention_backend (train.sh:17), which " + DOCUMENTED
    )


# The same override passed as a word of the command itself, and the key passed as a flag
# (NVIDIA/Megatron-LM examples/post_training/modelopt/finetune.sh:57, `--attention-backend
# ${BACKEND}`, where BACKEND is the script's own).
@pytest.mark.parametrize(
    "script",
    [
        "python run.py model.attention_backend=${ATTENTION_BACKEND:-auto} train.iters=10\n",
        'python run.py +model.attention_backend="${ATTENTION_BACKEND:-auto}"\n',
        "python pretrain_gpt.py --attention-backend ${ATTENTION_BACKEND:-auto} --lr 1e-5\n",
    ],
    ids=["override-word", "override-added", "flag"],
)
def test_the_key_reached_as_a_command_word_or_a_flag(tmp_path: Path, script: str) -> None:
    knob = scanned_knob(tmp_path, {"train.sh": script}, "ATTENTION_BACKEND")
    assert (knob.role, knob.default_on, knob.off_value) == (Role.KERNEL, True, "unfused")
    assert knob.role_reason is not None and knob.role_reason.endswith(DOCUMENTED)


def test_a_default_that_is_already_the_plain_value_chooses_no_kernel(tmp_path: Path) -> None:
    script = THINKER.replace("${ATTENTION_BACKEND:-auto}", "${ATTENTION_BACKEND:-unfused}")
    knob = scanned_knob(tmp_path, {"train.sh": script}, "ATTENTION_BACKEND")
    assert knob.role is not Role.KERNEL, knob.role_reason
    assert knob.off_value is None


def test_an_override_of_a_setting_the_table_does_not_hold_is_unknown(tmp_path: Path) -> None:
    knob = scanned_knob(tmp_path, {"train.sh": THINKER}, "MULTIMODAL_ATTN_IMPL")
    assert knob.role is Role.UNKNOWN
    assert knob.role_reason == (
        "it hands 'auto' to the override model.multimodal_attn_impl (train.sh:16), a setting of "
        "the program it starts that the table of trainer settings "
        "(scanner/reach/trainer_keys.py) does not hold: what its values do is in that program; "
        "a person must say"
    )
    # a null default leaves the setting empty: no choice, so a value as before
    assert scanned_knob(tmp_path, {"train.sh": THINKER}, "LR_WARMUP").role is Role.VALUE


@pytest.mark.parametrize(
    "word",
    [
        'dataset.load_kwargs="{data_files:${TRAIN_JSONL}}"',  # more than the value alone
        'model.path="${MODEL_DIR}/hf"',
        "ATTENTION=${ATTENTION_BACKEND}",  # a shell assignment, not a config path
    ],
)
def test_words_that_are_no_override_of_one_value(tmp_path: Path, word: str) -> None:
    script = f"python run.py {word}\n"
    name = word.split("${", 1)[1].split("}", 1)[0]
    knob = scanned_knob(tmp_path, {"train.sh": script}, name)
    assert [s.override for s in knob.sites] == [None]


# A launcher test whose branch passes `--attention-backend=flash` (the shape of
# NVIDIA/Megatron-LM examples/rl/model_configs/common.sh:40-41 with this key): its other value
# leaves the flag out, and the trainer's default, auto, still picks a fused kernel.
def test_a_branch_passing_an_implementation_whose_default_is_a_kernel_is_no_switch(
    tmp_path: Path,
) -> None:
    script = """\
OPTS="--lr 1e-6"
if [ ${USE_FLASH:-true} == true ]; then
    OPTS="${OPTS} --attention-backend=flash"
fi
python train.py ${OPTS}
"""
    knob = scanned_knob(tmp_path, {"common.sh": script}, "USE_FLASH")
    assert knob.sites[0].passes == (("true", "--attention-backend=flash"),)
    assert knob.role is not Role.KERNEL, knob.role_reason


# AMD-AGI/Primus examples/diffusion/configs/MI355X/flux.1_schnell_t2i-pretrain.yaml:58: the same
# key name in another program's config (Primus's diffusion trainer, whose values are sdpa,
# flash_attn_aiter, flex_attention, auto: primus/backends/diffusion/attention/attention.py:61-94).
FLUX = """\
modules:
  pre_trainer:
    overrides:
      runtime:
        seed: ${SEED:10007}
        attention_backend: ${ATTENTION_BACKEND:sdpa}
"""


def test_a_default_the_documented_key_does_not_take_is_another_programs_key(
    tmp_path: Path,
) -> None:
    knob = scanned_knob(tmp_path, {"flux.yaml": FLUX}, "ATTENTION_BACKEND")
    assert knob.role is not Role.KERNEL, knob.role_reason
    assert knob.off_value is None


# AMD-AGI/Primus runner/helpers/hooks/03_enable_ainic.sh:87: a hook prints `env.NAME=value` lines
# for the runner to read; a printed word is handed to no program's config.
def test_a_printed_word_is_no_override(tmp_path: Path) -> None:
    script = (
        'NCCL_NET_PLUGIN=${NCCL_NET_PLUGIN:-none}\necho "env.NCCL_NET_PLUGIN=${NCCL_NET_PLUGIN}"\n'
    )
    knob = scanned_knob(tmp_path, {"hook.sh": script}, "NCCL_NET_PLUGIN")
    assert [s.override for s in knob.sites] == [None, None]
    assert knob.role is not Role.UNKNOWN, knob.role_reason


# NovaSky-AI/SkyRL a9564572 examples/train/megatron/run_megatron_dapo_qwen3.6_27b_lora.sh:40, :71
# (the override lands on the trainer's field, skyrl/train/config/config.py:1147, which it hands
# to the vLLM engine it starts, skyrl/backends/skyrl_train/inference_servers/utils.py:96), and
# examples/train/thunder_agent/scripts/r2egym_32b/run_trainer.sh:194, :328 (already eager).
DAPO = """\
#!/bin/bash
ENFORCE_EAGER="${ENFORCE_EAGER:-false}"
uv run --isolated -m skyrl.train.entrypoints.main_base \\
  trainer.strategy=megatron \\
  generator.inference_engine.enforce_eager=$ENFORCE_EAGER \\
  "$@"
"""

ENGINE = (
    "vllm 0.33.0 vllm/config/model.py:276-282 documents as always eager PyTorch: True disables "
    "CUDA graphs and torch.compile, False captures CUDA graphs"
)


@pytest.mark.parametrize(
    ("default", "off"), [("false", "true"), ("False", "True"), ("FALSE", "TRUE")], ids=str
)
def test_a_word_handed_to_a_key_whose_true_runs_no_kernel(
    tmp_path: Path, default: str, off: str
) -> None:
    script = DAPO.replace(":-false}", f":-{default}}}")
    knob = scanned_knob(tmp_path, {"run.sh": script}, "ENFORCE_EAGER")
    assert (knob.role, knob.default_on, knob.off_value) == (Role.KERNEL, True, off)
    assert knob.role_reason == (
        f"it hands {default!r} to the config key enforce_eager (run.sh:5), which {ENGINE}; "
        f"{off!r} runs none of it"
    )


def test_a_word_that_already_runs_no_kernel_is_no_kernel_choice(tmp_path: Path) -> None:
    script = DAPO.replace(":-false}", ":-true}")
    knob = scanned_knob(tmp_path, {"run.sh": script}, "ENFORCE_EAGER")
    assert knob.off_value is None, knob.role_reason


@pytest.mark.parametrize(
    ("default", "kernel"), [("false", True), ("true", False)], ids=["graphs", "eager"]
)
def test_a_switch_set_into_that_key(tmp_path: Path, default: str, kernel: bool) -> None:
    # SkyRL examples/train/thunder_agent/scripts/r2egym_32b/run_trainer.sh:194, :328 (default
    # true: already eager, nothing to write; a "false" there would capture CUDA graphs)
    script = f"""\
if [ "${{EAGER:-{default}}}" = true ]; then echo eager; fi
python -m trainer generator.inference_engine.enforce_eager="${{EAGER:-{default}}}"
"""
    knob = scanned_knob(tmp_path, {"run.sh": script}, "EAGER")
    if kernel:
        assert (knob.role, knob.role_reason) == (
            Role.KERNEL,
            "it sets the config key enforce_eager (run.sh:2), which " + ENGINE,
        )
        assert (knob.polarity.value, knob.default_on, knob.on_value) == ("disable", False, "true")
    else:
        assert knob.role is not Role.KERNEL, knob.role_reason
