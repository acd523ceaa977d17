#!/bin/bash
# Megatron-LM examples/academic_paper_scripts/sc21/CONFIG.sh:5
export SLURM_PARTITION=<slurm partition>
echo "$SLURM_PARTITION"
