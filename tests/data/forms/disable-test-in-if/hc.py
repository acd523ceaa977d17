import os


def forward(x):
    if os.environ.get("PRIMUS_HC_EXPAND_TRITON", "1") == "0":
#      ^ PRIMUS_HC_EXPAND_TRITON on default="1" off="0" function=forward
        return eager(x)
    return fused(x)
