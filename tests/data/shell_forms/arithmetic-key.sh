#!/bin/bash
# Primus runner/primus-cli-container.sh:284 (an associative array: bash takes the key as text)
declare -A cfg
echo "${cfg[options.image]:-}"
