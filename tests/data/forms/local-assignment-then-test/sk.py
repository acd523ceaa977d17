import os


def sinkhorn_enabled():
    flag = os.environ.get("PRIMUS_SINKHORN_TRITON", "1").strip().lower()
#          ^ PRIMUS_SINKHORN_TRITON on default="1" off="0" function=sinkhorn_enabled
    return flag in ("1", "true", "yes")
