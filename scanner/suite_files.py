"""Which files are tests: their code says what the test does, not what the product does."""

from __future__ import annotations

import re
from typing import Final

TEST_FILE: Final = re.compile(
    r"(^|/)(tests?|testing|benchmarks?)/|(^|/)(test_[^/]*|[^/]*_test|conftest)\.(py|sh)$"
)
