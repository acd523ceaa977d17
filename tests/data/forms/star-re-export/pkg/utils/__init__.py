# The shape of sglang 0.5.23, sglang/srt/utils/__init__.py:2: the package re-exports
# every public name of its helpers' module with a star import.
from pkg.utils.common import *
