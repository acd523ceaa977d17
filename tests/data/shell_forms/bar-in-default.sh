#!/bin/bash
# Primus examples/deepseek-v4/run_deepseek_v4_flash.sh:325
export PP_LAYOUT="${PP_LAYOUT:-Et*10|t*12|t*9mL}"
export RECOMPUTE_LAYERS=${RECOMPUTE_LAYERS:-0}
