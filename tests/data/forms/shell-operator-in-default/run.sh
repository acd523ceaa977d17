#!/bin/bash
# Primus runner/helpers/hooks/00_rebuild_primus_turbo.sh:34 and
# examples/deepseek-v4/run_deepseek_v4_flash.sh:325: ; and | in a default's word, which
# bash reads as plain characters there.
GPU_ARCHS="${GPU_ARCHS:-gfx942;gfx950}"
#          ^ GPU_ARCHS none default="gfx942;gfx950" function=<script> read=expansion
export PRIMUS_PP_LAYOUT="${PRIMUS_PP_LAYOUT:-Et*10|t*12|t*9mL}"
#                        ^ PRIMUS_PP_LAYOUT none default="Et*10|t*12|t*9mL" function=<script> read=expansion
TARGET=${TARGET:-a&b}
#      ^ TARGET none default="a&b" function=<script> read=expansion
echo "$AFTER"
#     ^ AFTER none function=<script> read=expansion
