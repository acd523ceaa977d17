#!/bin/bash
# Primus runner/helpers/envs: a default that names another variable.
export HIP_ARCHITECTURES="${HIP_ARCHITECTURES:-$_ARCH_CSV}"
#                         ^ HIP_ARCHITECTURES none kind=unknown function=<script> read=expansion
#                                              ^ _ARCH_CSV none function=<script> read=expansion
