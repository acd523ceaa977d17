import os
from pathlib import Path


def cudnn_library():
    found = os.environ.get("PRIMUS_CUDNN_LIBRARY")
#           ^ PRIMUS_CUDNN_LIBRARY none function=cudnn_library
    if found is not None and os.path.isfile(found):
        return os.path.realpath(found)
    return None


def kernel_cache():
    return Path(os.getenv("PRIMUS_TRITON_CACHE_HOME", "/tmp/cache")) / "kernels"
#               ^ PRIMUS_TRITON_CACHE_HOME none default="/tmp/cache" function=kernel_cache read=getenv


def dump(text):
    with open(os.environ["PRIMUS_FUSED_DUMP_FILE"], "w") as out:
#             ^ PRIMUS_FUSED_DUMP_FILE none function=dump read=subscript
        out.write(text)


def writable_cache():
    current = os.environ.get("PRIMUS_FLYDSL_CACHE_DIR")
#             ^ PRIMUS_FLYDSL_CACHE_DIR none function=writable_cache
    if current and os.access(current, os.W_OK):
        return
    os.makedirs("/tmp/flydsl", exist_ok=True)
