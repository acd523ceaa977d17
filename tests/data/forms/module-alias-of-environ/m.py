import os

_env = os.environ
USE = _env.get("PRIMUS_A", "1") != "0"
#     ^ PRIMUS_A on default="1" off="0"
