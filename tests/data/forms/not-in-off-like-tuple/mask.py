import os

ON = os.environ.get("PRIMUS_INDEXER_MASK_CACHE", "1").lower() not in (
#    ^ PRIMUS_INDEXER_MASK_CACHE on default="1" off="0"
    "0", "false", "no", "off"
)
