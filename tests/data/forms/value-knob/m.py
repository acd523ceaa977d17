import os

BLOCK = int(os.environ.get("PRIMUS_BLOCK", "64"))
#           ^ PRIMUS_BLOCK none default="64"
