"""Re-exports: a package whose ``__init__`` star-imports the module that defines an
accessor (sglang's ``from sglang.srt.utils.common import *``) reaches it for
``from package import accessor``, as far as the module's ``__all__`` says; and a cached
scan notices when the ``__init__`` stops re-exporting it."""

from __future__ import annotations

from pathlib import Path

from scanner import scan
from tests.conftest import write_tree

COMMON = """
import os

{all}

def get_bool_env_var(name, default="false"):
    return os.getenv(name, default).lower() in ("true", "1")
"""
USER = """
from pkg.utils import get_bool_env_var

FUSED = get_bool_env_var("PRIMUS_STAR_FUSED", "true")
"""


def _tree(root: Path, *, init: str, all_line: str = "") -> Path:
    return write_tree(
        root,
        {
            "pkg/__init__.py": "",
            "pkg/utils/__init__.py": init,
            "pkg/utils/common.py": COMMON.format(all=all_line),
            "pkg/model.py": USER,
        },
    )


def _names(root: Path, cache: Path | None = None) -> list[str]:
    return [k.name for k in scan([root], root=root, cache_dir=cache).knobs]


def test_a_star_import_re_exports_the_public_names(tmp_path: Path) -> None:
    _tree(tmp_path, init="from pkg.utils.common import *\n")
    assert _names(tmp_path) == ["PRIMUS_STAR_FUSED"]


def test_a_relative_star_import_re_exports_too(tmp_path: Path) -> None:
    _tree(tmp_path, init="from .common import *\n")
    assert _names(tmp_path) == ["PRIMUS_STAR_FUSED"]


def test_a_star_import_of_a_star_import_re_exports(tmp_path: Path) -> None:
    _tree(tmp_path, init="from .common import *\n")
    write_tree(tmp_path, {"pkg/__init__.py": "from pkg.utils import *\n"})
    write_tree(tmp_path, {"pkg/model.py": USER.replace("pkg.utils", "pkg")})
    assert _names(tmp_path) == ["PRIMUS_STAR_FUSED"]


def test_all_decides_what_a_star_import_brings(tmp_path: Path) -> None:
    _tree(tmp_path, init="from .common import *\n", all_line='__all__ = ["get_bool_env_var"]')
    assert _names(tmp_path) == ["PRIMUS_STAR_FUSED"]
    _tree(tmp_path, init="from .common import *\n", all_line='__all__ = ["other"]')
    assert _names(tmp_path) == []  # the import fails in Python: nothing is read


def test_a_cached_scan_sees_the_re_export_go_and_come_back(tmp_path: Path) -> None:
    root, cache = _tree(tmp_path / "tree", init="from .common import *\n"), tmp_path / "cache"
    assert _names(root, cache) == ["PRIMUS_STAR_FUSED"]
    write_tree(root, {"pkg/utils/__init__.py": "from .other import *\n"})
    assert _names(root, cache) == []
    write_tree(root, {"pkg/utils/__init__.py": "from .common import *  # again\n"})
    assert _names(root, cache) == ["PRIMUS_STAR_FUSED"]
