#!/bin/bash
# Megatron-LM tests/functional_tests/shell_test_utils/_run_training.sh:33
VALUE="${ARGUMENT:$KEY_LENGTH+1}"
#      ^ ARGUMENT none function=<script> read=expansion
#                 ^ KEY_LENGTH none function=<script> read=expansion
echo "$VALUE"
