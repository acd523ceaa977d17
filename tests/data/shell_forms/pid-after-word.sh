#!/bin/bash
# Primus tests/runner/test_primus_cli_direct.sh:379
rm -f /tmp/test_err_$$
