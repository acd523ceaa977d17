import os

MASK = bool(int(os.getenv("PRIMUS_MASK", "0")))
#               ^ PRIMUS_MASK off default="0" off="0" read=getenv
