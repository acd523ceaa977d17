# NVIDIA/TransformerEngine@d0067d0d transformer_engine/pytorch/attention/dot_product_attention/utils.py:537-553, 1624, 1647-1677
import logging
import os

logger = logging.getLogger(__name__)


class FlashAttentionUtils:
    v3_is_installed = False


def get_attention_backend(attention_params, device_compute_capability=(9, 0)):
    # Filter: Environment variables
    use_flash_attention = int(os.environ.get("NVTE_FLASH_ATTN", "1"))
    use_flash_attention_2 = use_flash_attention and int(os.environ.get("NVTE_FLASH_ATTN_V2", "1"))
    use_flash_attention_3 = use_flash_attention and int(os.environ.get("NVTE_FLASH_ATTN_V3", "1"))
    use_fused_attention = int(os.environ.get("NVTE_FUSED_ATTN", "1"))
    use_unfused_attention = int(os.environ.get("NVTE_UNFUSED_ATTN", "1"))
    if not use_flash_attention_2:
        logger.debug("Disabling FlashAttention 2 due to NVTE_FLASH_ATTN=0 or NVTE_FLASH_ATTN_V2=0")
    if not use_flash_attention_3 and FlashAttentionUtils.v3_is_installed:
        logger.debug("Disabling FlashAttention 3 due to NVTE_FLASH_ATTN=0 or NVTE_FLASH_ATTN_V3=0")
    if not use_fused_attention:
        logger.debug("Disabling FusedAttention due to NVTE_FUSED_ATTN=0")
    if not use_unfused_attention:
        logger.debug("Disabling UnfusedDotProductAttention due to NVTE_UNFUSED_ATTN=0")
    use_flash_attention = use_flash_attention_2 or use_flash_attention_3

    # Select FusedAttention for performance
    if use_flash_attention and use_fused_attention and device_compute_capability >= (9, 0):
        use_flash_attention = False
    if use_flash_attention:
        use_fused_attention = False
        use_unfused_attention = False
    elif use_fused_attention:
        use_unfused_attention = False
    return use_flash_attention, use_fused_attention, use_unfused_attention
