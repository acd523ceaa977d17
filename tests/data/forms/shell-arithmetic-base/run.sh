#!/bin/bash
# Primus runner/primus-cli-slurm-entry.sh:157: a number with its base in arithmetic.
for (( N=10#$FIRST; N<=10#$LAST; N++ )); do
#           ^ FIRST none function=<script> read=expansion
#                         ^ LAST none function=<script> read=expansion
    echo "$N"
done
STEP=$((10#$STEP_RAW + 1))
#          ^ STEP_RAW none function=<script> read=expansion
