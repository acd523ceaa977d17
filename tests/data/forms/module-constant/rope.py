import os

_ROPE_KNOB = "PRIMUS_ROPE_TRITON"


def rope_disabled():
    return os.environ.get(_ROPE_KNOB, "1") == "0"
#          ^ PRIMUS_ROPE_TRITON on default="1" off="0" polarity=disable function=rope_disabled
