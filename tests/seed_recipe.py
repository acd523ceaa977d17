"""The seed document's measured DeepSeek-V4 recipe, written out as the tests' own data.

The repository's registry.yaml must reproduce it; the tests compare against this,
never against the registry itself.
"""

from __future__ import annotations

# The fifteen fusion knobs, in the order the seed reports them.
V4_FUSIONS = [
    "PRIMUS_RMSNORM_TRITON",
    "PRIMUS_ROPE_TRITON",
    "PRIMUS_SINKHORN_TRITON",
    "PRIMUS_HC_TRITON",
    "PRIMUS_HC_COLLAPSE_TRITON",
    "PRIMUS_HC_EXPAND_TRITON",
    "PRIMUS_COMPRESS_POOL_TRITON",
    "PRIMUS_COMPRESS_POOL_TRITON_BWD",
    "PRIMUS_COMPRESS_FUSE_PROJ",
    "PRIMUS_COMPRESS_ROPE_CACHE",
    "PRIMUS_COMPRESS_MASK_CACHE",
    "PRIMUS_INDEXER_TRITON",
    "PRIMUS_INDEXER_FUSE_PROJ",
    "PRIMUS_INDEXER_MASK_CACHE",
    "PRIMUS_V4_ROUTER_TRITON",
]

# The launcher variables PRIMUS_DETERMINISTIC=1 implies, as the seed recipe lists them.
LAUNCHER = {
    "PRIMUS_DETERMINISTIC": "1",
    "NCCL_ALGO": "Ring",
    "NVTE_ALLOW_NONDETERMINISTIC_ALGO": "0",
    "ROCBLAS_DEFAULT_ATOMICS_MODE": "0",
    "TORCH_COMPILE_DISABLE": "1",
    "PRIMUS_TURBO_AUTO_TUNE": "0",
}

# The whole recipe's environment: every fusion off, and the launcher variables.
RECIPE_ENV = {**dict.fromkeys(V4_FUSIONS, "0"), **LAUNCHER}

RECIPE_CONFIG = {
    "use_v4_attention_backend": "eager",
    "use_v4_csa_attention_backend": "eager",
    "deterministic_mode": True,
    "cross_entropy_loss_fusion": False,
    "gradient_accumulation_fusion": False,
    "moe_permute_fusion": False,
    "moe_use_legacy_grouped_gemm": True,
    "moe_router_force_load_balancing_type": "even",
    "enable_primus_turbo": False,
}

# What the reproducible profile adds to the config.
SEEDED = {"seed": 1234, "data_parallel_random_init": False}
