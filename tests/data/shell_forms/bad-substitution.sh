#!/bin/bash
# Megatron-LM tools/bisect.sh:69 (bash reports a bad substitution when it runs)
echo "$(ls "${that sGOLDEN_DIR}"/golden_values*.json)"
