#!/bin/bash
# verl examples/grpo_trainer/run_qwen2_5-3b_gsm8k_grpo_lora.sh: the last line ends in a
# line continuation, which bash accepts.
echo "lr: $LR"
#         ^ LR none function=<script> read=expansion
python3 -m verl.trainer.main_ppo \
    trainer.total_epochs=15 \
