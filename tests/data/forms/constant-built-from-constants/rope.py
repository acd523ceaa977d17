import os

_PREFIX = "PRIMUS_"
_UNUSED = "PRIMUS_OTHER"
_KNOB = _PREFIX + "ROPE_TRITON"


def rope_disabled():
    return os.environ.get(_KNOB, "1") == "0"
#          ^ PRIMUS_ROPE_TRITON on default="1" off="0" polarity=disable function=rope_disabled
