#!/bin/bash
# Primus runner/primus-cli-slurm-entry.sh:150: a pattern with a lone [ or ].
BODY="${NODELIST#*[}"; BODY="${BODY%%]*}"
#     ^ NODELIST none function=<script> read=expansion
SUF="${NODELIST#*]}"
#    ^ NODELIST none function=<script> read=expansion
echo "$BODY$SUF$NODES"
#              ^ NODES none function=<script> read=expansion
