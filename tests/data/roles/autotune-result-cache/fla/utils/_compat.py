# fla/utils/_compat.py:28-29: the value only reaches triton.autotune(cache_results=...)
import inspect

import triton

from ._config import FLA_CACHE_RESULTS

SUPPORTS_AUTOTUNE_CACHE = "cache_results" in inspect.signature(triton.autotune).parameters
autotune_cache_kwargs = {"cache_results": FLA_CACHE_RESULTS} if SUPPORTS_AUTOTUNE_CACHE else {}
