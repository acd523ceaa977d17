#!/bin/bash
# Megatron-LM examples/academic_paper_scripts/detxoify_lm/generate-1.3b.sh:16: $1 is
# one digit, then the word goes on.
OUTPUT=$1_output_"$PREFIX"_seed_"$SEED".jsonl
#                 ^ PREFIX none function=<script> read=expansion
#                                ^ SEED none function=<script> read=expansion
echo "$OUTPUT"
