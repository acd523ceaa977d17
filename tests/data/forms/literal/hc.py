import os


def is_triton_path_enabled():
    return os.environ.get("PRIMUS_HC_TRITON", "1") != "0"
#          ^ PRIMUS_HC_TRITON on default="1" off="0" function=is_triton_path_enabled
