#!/bin/bash
# An excerpt of NVIDIA/Megatron-LM examples/megatron_fsdp/train_llama3_8b_fsdp_h100_fp8.sh.

CHECKPOINT_PATH=${1:-"checkpoints/llama3_8b_fsdp_fp8"}

MASTER_ADDR=${MASTER_ADDR:-localhost}
MASTER_PORT=${MASTER_PORT:-29500}
NODE_RANK=${NODE_RANK:-0}

TRAINING_ARGS=(--micro-batch-size 1)
if [ "${NSYS_PROFILE:-0}" = 1 ]; then
    TRAINING_ARGS+=(--profile --profile-step-start 8 --profile-step-end 12)
fi

python -m torch.distributed.run --nproc_per_node 8 --master_addr "$MASTER_ADDR" \
    --master_port "$MASTER_PORT" --node_rank "$NODE_RANK" \
    pretrain_gpt.py "${TRAINING_ARGS[@]}" --save "$CHECKPOINT_PATH"
