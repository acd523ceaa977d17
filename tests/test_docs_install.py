"""The install commands the docs and messages give work today: none installs knobregistry
from PyPI, where it is not published yet (a sentence may name PyPI as a future channel)."""

from __future__ import annotations

import re
from pathlib import Path

from tests.conftest import REPO

# `pip install knobregistry`, `pip install 'knobregistry[megatron]'`: a name on PyPI. A
# requirement with a URL (`knobregistry[megatron] @ git+https://...`) is another thing.
FROM_PYPI = re.compile(r"""pip install ['"]?knobregistry(\[[\w,]*\])?['"]?(?!\s*@)(?![\w\[-])""")
FUTURE = "not published on PyPI yet"


def _texts() -> list[Path]:
    pages = sorted((REPO / "docs").glob("*.md"))
    sources = sorted(p for p in (REPO / "knobregistry").rglob("*.py"))
    return [REPO / "README.md", *pages, *sources]


def test_no_page_or_message_installs_knobregistry_from_pypi() -> None:
    found = []
    for path in _texts():
        for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
            if FROM_PYPI.search(line) and FUTURE not in line:
                found.append(f"{path.relative_to(REPO)}:{number}: {line.strip()}")
    assert found == []


def test_the_pattern_finds_what_it_must() -> None:
    assert FROM_PYPI.search("pip install knobregistry")
    assert FROM_PYPI.search("      - run: pip install knobregistry\n")
    assert FROM_PYPI.search("pip install 'knobregistry[megatron]'")
    assert not FROM_PYPI.search("pip install 'knobregistry[megatron] @ git+https://x/y'")
    assert not FROM_PYPI.search("pip install knobregistry-0.1.0-py3-none-any.whl")
    assert not FROM_PYPI.search("pip install dist/knobregistry-*.whl")


def test_install_page_gives_the_commands_that_work_today() -> None:
    page = (REPO / "docs" / "install.md").read_text(encoding="utf-8")
    for command in (
        "pip install .",
        "pip install -e .",
        "make dist",
        "pip install dist/knobregistry-*.whl",
        "pip install git+https://github.com/<org>/knobregistry",
    ):
        assert f"\n{command} " in page, command
    assert FUTURE in page
