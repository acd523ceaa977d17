# sglang 0.5.23, sglang/srt/utils/__init__.py:2: the package re-exports its common module.
from pkg.srt.utils.common import *
