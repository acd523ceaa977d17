"""Every source form the scanner handles: one case each, pinned to line and column."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

import pytest

from scanner import GateKind, ReadKind, scan
from tests.conftest import write_tree

UTIL = """
import os


def env_flag(name: str, default: bool = False) -> bool:
    raw = os.environ.get(name)
    if raw is None:
        return default
    return raw.strip().lower() in ("1", "true", "yes", "on")
"""


@dataclass(frozen=True)
class Expected:
    name: str
    path: str
    line: int
    column: int
    default: str | None
    default_on: bool | None
    off_value: str | None
    function: str = "<module>"
    kind: ReadKind = ReadKind.GET
    via: str | None = None


@dataclass(frozen=True)
class Case:
    id: str
    files: dict[str, str]
    expected: tuple[Expected, ...]
    extra: dict[str, str] = field(default_factory=dict)


CASES = [
    Case(
        "literal",
        {
            "hc.py": """
            import os


            def is_triton_path_enabled():
                return os.environ.get("PRIMUS_HC_TRITON", "1") != "0"
            """
        },
        (Expected("PRIMUS_HC_TRITON", "hc.py", 5, 12, "1", True, "0", "is_triton_path_enabled"),),
    ),
    Case(
        "import-os-as",
        {"m.py": 'import os as _os\n\nUSE = _os.environ.get("PRIMUS_A", "1") != "0"\n'},
        (Expected("PRIMUS_A", "m.py", 3, 7, "1", True, "0"),),
    ),
    Case(
        "from-os-import-environ",
        {"m.py": 'from os import environ\n\nUSE = environ.get("PRIMUS_A", "0") == "1"\n'},
        (Expected("PRIMUS_A", "m.py", 3, 7, "0", False, "0"),),
    ),
    Case(
        "from-os-import-getenv",
        {"m.py": 'from os import getenv\n\nUSE = getenv("PRIMUS_A", "1") != "0"\n'},
        (Expected("PRIMUS_A", "m.py", 3, 7, "1", True, "0", kind=ReadKind.GETENV),),
    ),
    Case(
        "from-os-import-environ-as",
        {"m.py": 'from os import environ as ENV\n\nUSE = ENV.get("PRIMUS_A", "1") != "0"\n'},
        (Expected("PRIMUS_A", "m.py", 3, 7, "1", True, "0"),),
    ),
    Case(
        "module-alias-of-environ",
        {"m.py": 'import os\n\n_env = os.environ\nUSE = _env.get("PRIMUS_A", "1") != "0"\n'},
        (Expected("PRIMUS_A", "m.py", 4, 7, "1", True, "0"),),
    ),
    Case(
        "function-local-import",
        {
            "m.py": """
            def enabled():
                import os

                return os.getenv("PRIMUS_A", "1") != "0"
            """
        },
        (Expected("PRIMUS_A", "m.py", 4, 12, "1", True, "0", "enabled", ReadKind.GETENV),),
    ),
    Case(
        "module-constant",
        {
            "rope.py": """
            import os

            _ROPE_KNOB = "PRIMUS_ROPE_TRITON"


            def rope_disabled():
                return os.environ.get(_ROPE_KNOB, "1") == "0"
            """
        },
        (Expected("PRIMUS_ROPE_TRITON", "rope.py", 7, 12, "1", True, "0", "rope_disabled"),),
    ),
    Case(
        "constant-built-from-constants",
        {
            "rope.py": """
            import os

            _PREFIX = "PRIMUS_"
            _UNUSED = "PRIMUS_OTHER"
            _KNOB = _PREFIX + "ROPE_TRITON"


            def rope_disabled():
                return os.environ.get(_KNOB, "1") == "0"
            """
        },
        (Expected("PRIMUS_ROPE_TRITON", "rope.py", 9, 12, "1", True, "0", "rope_disabled"),),
    ),
    Case(
        "same-module-wrapper",
        {
            "gates.py": """
            import os


            def _env_truthy(name, default="0"):
                return os.environ.get(name, default) not in ("0", "false", "")


            USE_SINKHORN = _env_truthy("PRIMUS_SINKHORN_TRITON", "1")
            """
        },
        (
            Expected(
                "PRIMUS_SINKHORN_TRITON",
                "gates.py",
                8,
                16,
                "1",
                True,
                "0",
                kind=ReadKind.WRAPPER,
                via="gates._env_truthy",
            ),
        ),
    ),
    Case(
        "cross-module-wrapper",
        {
            "pkg/__init__.py": "",
            "pkg/util.py": UTIL,
            "pkg/model.py": """
            from pkg.util import env_flag


            def use_router() -> bool:
                return env_flag("PRIMUS_V4_ROUTER_TRITON")
            """,
        },
        (
            Expected(
                "PRIMUS_V4_ROUTER_TRITON",
                "pkg/model.py",
                5,
                12,
                "False",  # what env_flag gives with it unset: its default parameter
                False,
                "0",
                "use_router",
                ReadKind.WRAPPER,
                "pkg.util.env_flag",
            ),
        ),
    ),
    Case(
        "wrapper-default-true",
        {
            "pkg/__init__.py": "",
            "pkg/util.py": UTIL,
            "pkg/hc.py": """
            from pkg import util

            HC_ON = util.env_flag("PRIMUS_HC_TRITON", default=True)
            """,
        },
        (
            Expected(
                "PRIMUS_HC_TRITON",
                "pkg/hc.py",
                3,
                9,
                "True",
                True,
                "0",
                kind=ReadKind.WRAPPER,
                via="pkg.util.env_flag",
            ),
        ),
    ),
    Case(
        "wrapper-of-wrapper-relative-import",
        {
            "pkg/__init__.py": "",
            "pkg/util.py": UTIL,
            "pkg/fusions.py": """
            from .util import env_flag


            def fusion_enabled(name):
                return env_flag(name, default=True)


            ROPE = fusion_enabled("PRIMUS_ROPE_TRITON")
            """,
        },
        (
            Expected(
                "PRIMUS_ROPE_TRITON",
                "pkg/fusions.py",
                8,
                8,
                "True",
                True,
                "0",
                kind=ReadKind.WRAPPER,
                via="pkg.fusions.fusion_enabled",
            ),
        ),
    ),
    Case(
        "wrapper-of-wrapper-from-a-third-module",
        {
            "pkg/__init__.py": "",
            "pkg/util.py": UTIL,
            "pkg/fusions.py": """
            from pkg.util import env_flag


            def fusion_enabled(name):
                return env_flag(name, default=True)
            """,
            "pkg/mlp.py": """
            from pkg.fusions import fusion_enabled


            def forward(x):
                if fusion_enabled("PRIMUS_SWIGLU_FUSED"):
                    return fused(x)
                return eager(x)
            """,
        },
        (
            Expected(
                "PRIMUS_SWIGLU_FUSED",
                "pkg/mlp.py",
                5,
                8,
                "True",
                True,
                "0",
                "forward",
                ReadKind.WRAPPER,
                "pkg.fusions.fusion_enabled",
            ),
        ),
    ),
    Case(
        "method-wrapper-through-self",
        {
            "router.py": """
            import os


            class Router:
                def _flag(self, name, default="1"):
                    return os.environ.get(name, default) != "0"

                def use_triton(self):
                    return self._flag("PRIMUS_V4_ROUTER_TRITON")
            """
        },
        (
            Expected(
                "PRIMUS_V4_ROUTER_TRITON",
                "router.py",
                9,
                16,
                "1",
                True,
                "0",
                "Router.use_triton",
                ReadKind.WRAPPER,
                "router.Router._flag",
            ),
        ),
    ),
    Case(
        "in-environ-guard-plus-subscript",
        {
            "dbg.py": """
            import os

            DEBUG = "PRIMUS_DEBUG" in os.environ and os.environ["PRIMUS_DEBUG"] == "1"
            """
        },
        (
            Expected("PRIMUS_DEBUG", "dbg.py", 3, 9, None, False, "0", kind=ReadKind.CONTAINS),
            Expected("PRIMUS_DEBUG", "dbg.py", 3, 42, None, False, "0", kind=ReadKind.SUBSCRIPT),
        ),
    ),
    Case(
        "in-environ-guard-returning-a-path",
        {
            "dump.py": """
            import os


            def debug_dump_path():
                if "PRIMUS_DEBUG_DUMP" in os.environ:
                    return os.environ["PRIMUS_DEBUG_DUMP"]
                return None
            """
        },
        (
            Expected(
                "PRIMUS_DEBUG_DUMP",
                "dump.py",
                5,
                8,
                None,
                None,
                None,
                "debug_dump_path",
                ReadKind.CONTAINS,
            ),
            Expected(
                "PRIMUS_DEBUG_DUMP",
                "dump.py",
                6,
                16,
                None,
                None,
                None,
                "debug_dump_path",
                ReadKind.SUBSCRIPT,
            ),
        ),
    ),
    Case(
        "presence-gate",
        {
            "prof.py": """
            import os


            def maybe_profile():
                if "PRIMUS_PROFILE" in os.environ:
                    start_profiler()
            """
        },
        (
            Expected(
                "PRIMUS_PROFILE",
                "prof.py",
                5,
                8,
                None,
                False,
                None,
                "maybe_profile",
                ReadKind.CONTAINS,
            ),
        ),
    ),
    Case(
        "multi-line-call",
        {
            "idx.py": """
            import os

            USE_INDEXER = (
                os.environ.get(
                    "PRIMUS_INDEXER_TRITON",
                    "1",
                )
                != "0"
            )
            """
        },
        (Expected("PRIMUS_INDEXER_TRITON", "idx.py", 4, 5, "1", True, "0"),),
    ),
    Case(
        "lambda-in-dict",
        {
            "norm.py": """
            import os

            GATES = {
                "rmsnorm": lambda: os.environ.get("PRIMUS_RMSNORM_TRITON", "1") != "0",
            }
            """
        },
        (Expected("PRIMUS_RMSNORM_TRITON", "norm.py", 4, 24, "1", True, "0", "<lambda>"),),
    ),
    Case(
        "method",
        {
            "pool.py": """
            import os


            class Compressor:
                def use_pool_kernel(self) -> bool:
                    return os.getenv("PRIMUS_COMPRESS_POOL_TRITON", "1") != "0"
            """
        },
        (
            Expected(
                "PRIMUS_COMPRESS_POOL_TRITON",
                "pool.py",
                6,
                16,
                "1",
                True,
                "0",
                "Compressor.use_pool_kernel",
                ReadKind.GETENV,
            ),
        ),
    ),
    Case(
        "class-body",
        {
            "cfg.py": """
            import os


            class Config:
                fused = os.environ.get("PRIMUS_FUSED", "1") != "0"
            """
        },
        (Expected("PRIMUS_FUSED", "cfg.py", 5, 13, "1", True, "0", "Config"),),
    ),
    Case(
        "nested-function",
        {
            "nest.py": """
            import os


            def outer():
                def inner():
                    return os.environ.get("PRIMUS_NESTED", "1") != "0"

                return inner
            """
        },
        (Expected("PRIMUS_NESTED", "nest.py", 6, 16, "1", True, "0", "outer.<locals>.inner"),),
    ),
    Case(
        "module-level",
        {
            "proj.py": """
            import os

            FUSE_PROJ = os.environ.get("PRIMUS_COMPRESS_FUSE_PROJ", "1") != "0"
            """
        },
        (Expected("PRIMUS_COMPRESS_FUSE_PROJ", "proj.py", 3, 13, "1", True, "0"),),
    ),
    Case(
        "disable-test-in-if",
        {
            "hc.py": """
            import os


            def forward(x):
                if os.environ.get("PRIMUS_HC_EXPAND_TRITON", "1") == "0":
                    return eager(x)
                return fused(x)
            """
        },
        (Expected("PRIMUS_HC_EXPAND_TRITON", "hc.py", 5, 8, "1", True, "0", "forward"),),
    ),
    Case(
        "not-in-off-like-tuple",
        {
            "mask.py": """
            import os

            ON = os.environ.get("PRIMUS_INDEXER_MASK_CACHE", "1").lower() not in (
                "0", "false", "no", "off"
            )
            """
        },
        (Expected("PRIMUS_INDEXER_MASK_CACHE", "mask.py", 3, 6, "1", True, "0"),),
    ),
    Case(
        "int-truthiness",
        {
            "cache.py": """
            import os


            def use_cache():
                if int(os.environ.get("PRIMUS_COMPRESS_ROPE_CACHE", "1")):
                    return True
                return False
            """
        },
        (Expected("PRIMUS_COMPRESS_ROPE_CACHE", "cache.py", 5, 12, "1", True, "0", "use_cache"),),
    ),
    Case(
        "bool-int-truthiness",
        {"m.py": 'import os\n\nMASK = bool(int(os.getenv("PRIMUS_MASK", "0")))\n'},
        (Expected("PRIMUS_MASK", "m.py", 3, 17, "0", False, "0", kind=ReadKind.GETENV),),
    ),
    Case(
        "lower-in-true-words",
        {
            "attn.py": """
            import os

            USE_TRITON = os.environ.get("PRIMUS_ATTN_TRITON", "false").lower() in ("true", "1")
            """
        },
        (Expected("PRIMUS_ATTN_TRITON", "attn.py", 3, 14, "false", False, "0"),),
    ),
    Case(
        "local-assignment-then-test",
        {
            "sk.py": """
            import os


            def sinkhorn_enabled():
                flag = os.environ.get("PRIMUS_SINKHORN_TRITON", "1").strip().lower()
                return flag in ("1", "true", "yes")
            """
        },
        (Expected("PRIMUS_SINKHORN_TRITON", "sk.py", 5, 12, "1", True, "0", "sinkhorn_enabled"),),
    ),
    Case(
        "strtobool",
        {
            "m.py": """
            import os
            from distutils.util import strtobool

            FLAG = strtobool(os.environ.get("PRIMUS_STRTOBOOL", "0"))
            """
        },
        (Expected("PRIMUS_STRTOBOOL", "m.py", 4, 18, "0", False, "0"),),
    ),
    Case(
        "value-knob",
        {"m.py": 'import os\n\nBLOCK = int(os.environ.get("PRIMUS_BLOCK", "64"))\n'},
        (Expected("PRIMUS_BLOCK", "m.py", 3, 13, "64", None, None),),
    ),
]


@pytest.mark.parametrize("case", CASES, ids=[c.id for c in CASES])
def test_source_form(case: Case, tmp_path: Path) -> None:
    write_tree(tmp_path, case.files)
    result = scan([tmp_path], root=tmp_path)
    assert result.errors == ()
    assert result.dynamic == ()
    found = [
        Expected(
            s.name,
            s.path,
            s.line,
            s.column,
            s.default,
            s.default_on,
            s.gate.off_value,
            s.function,
            s.kind,
            s.via,
        )
        for k in result.knobs
        for s in k.sites
    ]
    assert found == list(case.expected)


def test_presence_gate_has_no_off_value_but_unset(tmp_path: Path) -> None:
    write_tree(tmp_path, {"m.py": 'import os\n\nif "PRIMUS_P" in os.environ:\n    go()\n'})
    (knob,) = scan([tmp_path], root=tmp_path).knobs
    assert knob.sites[0].gate.kind is GateKind.PRESENCE
    assert knob.sites[0].gate.off_values == ()
    assert knob.off_value is None


def test_off_values_list_exactly_the_values_that_turn_the_gate_off(tmp_path: Path) -> None:
    write_tree(tmp_path, {"m.py": 'import os\n\nON = os.environ.get("PRIMUS_A", "1") != "0"\n'})
    (knob,) = scan([tmp_path], root=tmp_path).knobs
    # Only "0" turns a `!= "0"` gate off: "false" leaves it on.
    assert knob.sites[0].gate.off_values == ("0",)
    assert "false" in knob.sites[0].gate.on_values
