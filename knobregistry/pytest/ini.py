"""The ini keys of the knobs pytest plugin, registered on their own.

`pytest -p no:knobs` turns the plugin off (the documented way), yet a project keeps
`knobs_registry` in its pytest configuration; registered here, under a second entry
point, the keys stay known, so pytest neither warns about them nor fails under
``--strict-config``.
"""

from __future__ import annotations

import pytest

INI_KEYS = (
    ("knobs_registry", "The knob registry to check; turns the knobs items on."),
    ("knobs_baseline", "A `knobs check` baseline file to apply."),
)


def pytest_addoption(parser: pytest.Parser) -> None:
    for name, help_text in INI_KEYS:
        parser.addini(name, help_text)
