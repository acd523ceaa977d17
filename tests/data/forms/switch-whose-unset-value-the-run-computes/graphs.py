# unsloth 2026.10.9, unsloth/models/_decode_graphs.py:78-90: "1" turns it on, "0" off, and
# unset (any other value) leaves it to what the run finds (an RL step on a CUDA machine).
import os


def enabled():
    flag = os.environ.get("TOY_DECODE_GRAPHS", "")
#          ^ TOY_DECODE_GRAPHS none kind=boolean default="" off="0" function=enabled
    if flag == "1":
        return True
    if flag == "0":
        return False
    return default_ok() and rl_depth() > 0
