"""Lone surrogates: half a UTF-16 pair, which a Python string may hold (from source code, a
cache, YAML's `"\\ud800"`) and no UTF-8 file, shell or environment can carry as it is."""

from __future__ import annotations

import re
from typing import Final

LONE_SURROGATE: Final = re.compile("[\ud800-\udfff]")
