import os

USE_TRITON = os.environ.get("PRIMUS_ATTN_TRITON", "false").lower() in ("true", "1")
#            ^ PRIMUS_ATTN_TRITON off default="false" off="0"
