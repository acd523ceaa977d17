#!/bin/bash
#
# Global hook: enable deterministic-friendly settings when requested.
# (An excerpt of AMD-AGI/Primus runner/helpers/hooks/05_deterministic.sh.)
#
# This hook emits env.* lines which will be exported by execute_hooks.sh.

set -euo pipefail

if [[ "${PRIMUS_DETERMINISTIC:-0}" != "1" ]]; then
    exit 0
fi

echo "env.NCCL_ALGO=Ring"
echo "env.NVTE_ALLOW_NONDETERMINISTIC_ALGO=0"
echo "env.TORCH_COMPILE_DISABLE=1"
