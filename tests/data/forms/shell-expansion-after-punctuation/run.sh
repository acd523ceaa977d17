#!/bin/bash
# Megatron-LM and Primus launchers: a path built from two reads (tree-sitter-bash #315).
mkdir -p $OUT_ROOT/$RUN_NAME/ckpt
#        ^ OUT_ROOT none function=<script> read=expansion
#                  ^ RUN_NAME none function=<script> read=expansion
