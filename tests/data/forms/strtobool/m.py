import os
from distutils.util import strtobool

FLAG = strtobool(os.environ.get("PRIMUS_STRTOBOOL", "0"))
#                ^ PRIMUS_STRTOBOOL off default="0" off="0"
