#!/bin/bash
# Megatron-LM examples/megatron_fsdp/sbatch_mfsdp_deepseek_v3.sh:88
ARGS=(
    --moe-layer-freq [0]*3+[1]*58
    --seq-length "$SEQ"
)
