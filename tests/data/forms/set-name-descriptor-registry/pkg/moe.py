# sglang reads a field through the instance (envs.X.get(), 1,333 calls in 0.5.23), through
# the class (Envs.X.get()), or asks whether it is set (envs.X.is_set(), 54 calls).
from pkg.environ import Envs, envs


def use_fused_moe():
    if envs.SGLANG_ENABLE_FUSED_MOE.get():
#      ^ SGLANG_ENABLE_FUSED_MOE on default="True" off="0" function=use_fused_moe read=field via=pkg.environ.envs
        return "fused"
    return "eager"


def deterministic():
    return Envs.SGLANG_ENABLE_DETERMINISTIC_INFERENCE.get()
#          ^ SGLANG_ENABLE_DETERMINISTIC_INFERENCE off default="False" off="0" function=deterministic read=field via=pkg.environ.Envs


BLOCK = envs.SGLANG_MOE_BLOCK.get() * 2
#       ^ SGLANG_MOE_BLOCK none default="64" read=field via=pkg.environ.envs
