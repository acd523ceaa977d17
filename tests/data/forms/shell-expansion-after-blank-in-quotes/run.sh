#!/bin/bash
# torchtitan run_moe_tests.sh:323, Megatron-LM examples/mimo/scripts: inside double
# quotes, after a blank or a line continuation.
echo "PARALLEL: ${NAME_A} ${MODEL_SHORT}"
#               ^ NAME_A none function=<script> read=expansion
#                         ^ MODEL_SHORT none function=<script> read=expansion
echo "torchrun \
    ${TRAINING_ARGS}"
#   ^ TRAINING_ARGS none function=<script> read=expansion
