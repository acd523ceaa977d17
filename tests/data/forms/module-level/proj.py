import os

FUSE_PROJ = os.environ.get("PRIMUS_COMPRESS_FUSE_PROJ", "1") != "0"
#           ^ PRIMUS_COMPRESS_FUSE_PROJ on default="1" off="0"
