# 14 files of sglang import lora_envs and read its fields with .get().
from lora.environ import lora_envs


def pack():
    if lora_envs.SGLANG_OPT_LORA_FUSED_TOPK_PACK.get():
#      ^ SGLANG_OPT_LORA_FUSED_TOPK_PACK on default="True" off="0" function=pack read=field via=lora.environ.lora_envs
        return "fused"
    return "split"
