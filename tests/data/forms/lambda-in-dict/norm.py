import os

GATES = {
    "rmsnorm": lambda: os.environ.get("PRIMUS_RMSNORM_TRITON", "1") != "0",
#                      ^ PRIMUS_RMSNORM_TRITON on default="1" off="0" function=<lambda>
}
