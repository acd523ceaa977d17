#!/bin/bash
# Megatron-LM .gitlab/scripts/fetch-legacy-suite.sh:12
usage() {
    cat <<EOF
Usage: $0 [OPTIONS]

Options:
    --repo URL   (default: $MCORE_REPO)
EOF
}
