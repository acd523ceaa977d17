# sglang 0.5.23, sglang/srt/models/minimax_vl_common.py:34 and :820 (a folder that is no
# package either): the registry imported from the package that re-exports it.
from pkg.srt.utils import envs, is_small


def block(unit):
    return envs.PKG_VIT_TOKEN_BLOCK.get() // unit * unit
#          ^ PKG_VIT_TOKEN_BLOCK none default="4096" function=block read=field via=environ.envs
