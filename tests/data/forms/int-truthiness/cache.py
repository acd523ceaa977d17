import os


def use_cache():
    if int(os.environ.get("PRIMUS_COMPRESS_ROPE_CACHE", "1")):
#          ^ PRIMUS_COMPRESS_ROPE_CACHE on default="1" off="0" function=use_cache
        return True
    return False
