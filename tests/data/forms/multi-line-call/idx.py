import os

USE_INDEXER = (
    os.environ.get(
#   ^ PRIMUS_INDEXER_TRITON on default="1" off="0"
        "PRIMUS_INDEXER_TRITON",
        "1",
    )
    != "0"
)
