# fla/utils/__init__.py:10-20
from ._compat import autotune_cache_kwargs  # noqa: F401
from ._config import FLA_CACHE_RESULTS  # noqa: F401
