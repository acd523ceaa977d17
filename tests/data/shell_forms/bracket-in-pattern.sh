#!/bin/bash
# Primus runner/primus-cli-slurm-entry.sh:150
body="${s#*[}"; body="${body%%]*}"
suf="${s#*]}"
echo "$body$suf$NODES"
