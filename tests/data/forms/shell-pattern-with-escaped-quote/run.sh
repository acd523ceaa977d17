#!/bin/bash
# Primus runner/lib/common.sh:389: an escaped single quote in a pattern.
VALUE="${VALUE%\'}"
#      ^ VALUE none function=<script> read=expansion
VALUE="${VALUE#\'}"
#      ^ VALUE none function=<script> read=expansion
echo "$VALUE"
#     ^ VALUE none function=<script> read=expansion
echo "$NEXT_LINE"
#     ^ NEXT_LINE none function=<script> read=expansion
