# sglang 0.5.23, sglang/srt/utils/common.py:100: the module imports the registry's
# instance, so a star import of it binds `envs` too.
from pkg.srt.environ import envs


def is_small(size):
    return size < 16
