import os as _os

USE = _os.environ.get("PRIMUS_A", "1") != "0"
#     ^ PRIMUS_A on default="1" off="0"
