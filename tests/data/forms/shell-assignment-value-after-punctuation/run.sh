#!/bin/bash
# Primus examples/moe_package/run_deepseek_v2_lite_pretrain_mi355x.sh:195, where the
# grammar made the rest of the value a command.
LOG_DIR=./output/$PRIMUS_TEAM/$PRIMUS_USER/$PRIMUS_EXP_NAME
#                ^ PRIMUS_TEAM none function=<script> read=expansion
#                             ^ PRIMUS_USER none function=<script> read=expansion
#                                          ^ PRIMUS_EXP_NAME none function=<script> read=expansion
mkdir -p "$LOG_DIR"
export EXP_NAME=dsv2-mbs_$MBS-gbs_$GBS-pp_$PP
#                        ^ MBS none function=<script> read=expansion
#                                 ^ GBS none function=<script> read=expansion
#                                         ^ PP none function=<script> read=expansion
