# sglang 0.5.23, sglang/srt/lora/trtllm_lora_temp/environ.py:33 (_GatedBool keeps the name
# it is given), :58 (class _LoraEnvs declares 19 of them) and lora_envs = _LoraEnvs().
import os


class _GatedBool:
    def __init__(self, name, default):
        self._name = name
        self._default = default

    def get(self):
        raw = os.environ.get(self._name)
        if raw is None:
            return self._default
        return raw.strip().lower() in {"1", "true", "yes", "on"}


class _LoraEnvs:
    SGLANG_OPT_LORA_FUSED_TOPK_PACK = _GatedBool("SGLANG_OPT_LORA_FUSED_TOPK_PACK", True)
#                                     ^ SGLANG_OPT_LORA_FUSED_TOPK_PACK on default="True" off="0" function=_LoraEnvs read=descriptor via=lora.environ._GatedBool


lora_envs = _LoraEnvs()
