#!/bin/bash
# Primus runner/lib/config.sh:377
if [[ "$key" =~ ^${prefix}\. ]]; then
    echo "$key"
fi
