#!/bin/bash
# Megatron-LM examples/post_training/modelopt/validate.sh:34
if [ -z ${GT_PATH}]; then
    echo "no GT_PATH"
fi
