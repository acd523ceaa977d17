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


ENVIRON = """
import os


class EnvField:
    def __init__(self, default):
        self.default = default

    def __set_name__(self, owner, name):
        self.name = name

    def get(self):
        value = os.getenv(self.name)
        return self.default if value is None else value == "1"


class Envs:
    PKG_FUSED_VIT = EnvField(True)


envs = Envs()
"""


def _registry_tree(root: Path, *, common: str, all_line: str = "") -> Path:
    # sglang 0.5.23: models/minimax_vl_common.py:34 imports envs from sglang.srt.utils,
    # whose __init__.py:2 star-imports utils/common.py, which imports it (:100) from
    # sglang/srt/environ.py; sglang/srt and sglang/srt/models are folders without
    # __init__.py.
    return write_tree(
        root,
        {
            "pkg/__init__.py": "",
            "pkg/srt/environ.py": ENVIRON,
            "pkg/srt/utils/__init__.py": "from pkg.srt.utils.common import *\n",
            "pkg/srt/utils/common.py": f"{common}\n{all_line}\n",
            "pkg/srt/models/vit.py": (
                "from pkg.srt.utils import envs\n\n\ndef fused():\n"
                "    return envs.PKG_FUSED_VIT.get()\n"
            ),
        },
    )


def _field_sites(root: Path, cache: Path | None = None) -> list[tuple[str, int]]:
    result = scan([root], root=root, cache_dir=cache)
    return [(s.path, s.line) for k in result.knobs for s in k.sites if s.path.endswith("vit.py")]


def test_a_registry_imported_by_a_star_imported_module_is_followed(tmp_path: Path) -> None:
    root, cache = tmp_path / "t", tmp_path / "cache"
    _registry_tree(root, common="from pkg.srt.environ import envs")
    assert _field_sites(root, cache) == [("pkg/srt/models/vit.py", 5)]
    # `__all__` without it: the star import does not bind it (and a cached scan notices).
    _registry_tree(root, common="from pkg.srt.environ import envs", all_line='__all__ = ["x"]')
    assert _field_sites(root, cache) == []
    _registry_tree(root, common="import os")
    assert _field_sites(root, cache) == []
