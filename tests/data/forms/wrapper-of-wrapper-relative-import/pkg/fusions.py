from .util import env_flag


def fusion_enabled(name):
    return env_flag(name, default=True)


ROPE = fusion_enabled("PRIMUS_ROPE_TRITON")
#      ^ PRIMUS_ROPE_TRITON on default="True" off="0" read=wrapper via=pkg.fusions.fusion_enabled
