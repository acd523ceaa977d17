#!/bin/bash
# Primus runner/lib/common.sh:389
value="${value%\'}"
value="${value#\'}"
echo "$value"
