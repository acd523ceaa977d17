"""What the scanner reaches beyond plain ``os.environ`` reads: one case per form, on real
files, each read pinned to its line and column with its gate verdict."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

import pytest

from scanner import GateKind, Polarity, ReadKind, Settings, scan
from scanner.reach.carriers import _imports
from scanner.reach.libraries import library_of
from tests.conftest import write_tree

B, V, P = GateKind.BOOLEAN, GateKind.VALUE, GateKind.PRESENCE


@dataclass(frozen=True)
class Read:
    """One expected site: where, how it reads, and its verdict."""

    name: str
    path: str
    line: int
    column: int
    kind: ReadKind
    default: str | None
    gate: GateKind
    default_on: bool | None = None
    off_value: str | None = None
    via: str | None = None
    polarity: Polarity = Polarity.ENABLE


@dataclass(frozen=True)
class Case:
    id: str
    files: dict[str, str]
    expected: tuple[Read, ...]
    settings: Settings = field(default_factory=Settings)


KNOBS = """
import os
from fakeext._C.libfake import getenv, getenv_bool


class env_base:
    def __init__(self, key):
        self.key = key


class env_bool(env_base):
    def __init__(self, key, default=False):
        super().__init__(key)
        self.default = default

    def get(self):
        return getenv_bool(self.key, self.default)


class env_int(env_base):
    def __init__(self, key, default=0):
        super().__init__(key)
        self.default = default

    def get(self):
        val = getenv(self.key)
        return self.default if val is None else int(val)


class env_tool(env_base):
    def __init__(self, binary):
        super().__init__(f"FAKE_{binary.upper()}_PATH")

    def get(self):
        return getenv(self.key)
"""

FACTORY = """
import os


def env_with_choices(env_name, default, choices):
    def _validated():
        value = os.getenv(env_name)
        if value is None:
            return default
        if value not in choices:
            raise ValueError(value)
        return value

    return _validated
"""

CASES = [
    Case(
        "accessor-from-a-compiled-module",
        {
            "m.py": """
            from fakeext._C.libfake import getenv, getenv_bool

            DEBUG = getenv_bool("FAKE_DEBUG", False)
            HOME = getenv("FAKE_HOME", "~")
            """
        },
        (
            Read("FAKE_DEBUG", "m.py", 3, 9, ReadKind.ACCESSOR, "False", B, False, "0"),
            Read("FAKE_HOME", "m.py", 4, 8, ReadKind.ACCESSOR, "~", V),
        ),
    ),
    Case(
        "descriptor-classes-in-a-class-body",
        {
            "knobs.py": KNOBS,
            "use.py": """
            from knobs import env_bool, env_int, env_tool


            class runtime:
                debug: env_bool = env_bool("FAKE_DEBUG")
                port: env_int = env_int("FAKE_PORT", 6379)
                mode: bool = env_bool("FAKE_MODE", True).get()
                ptxas: env_tool = env_tool("ptxas")
            """,
        },
        (
            Read(
                "FAKE_DEBUG",
                "use.py",
                5,
                23,
                ReadKind.DESCRIPTOR,
                "False",
                B,
                False,
                "0",
                "knobs.env_bool",
            ),
            Read(
                "FAKE_MODE",
                "use.py",
                7,
                18,
                ReadKind.DESCRIPTOR,
                "True",
                B,
                True,
                "0",
                "knobs.env_bool",
            ),
            Read("FAKE_PORT", "use.py", 6, 21, ReadKind.DESCRIPTOR, "6379", V, via="knobs.env_int"),
            Read(
                "FAKE_PTXAS_PATH",
                "use.py",
                8,
                23,
                ReadKind.DESCRIPTOR,
                None,
                V,
                via="knobs.env_tool",
            ),
        ),
    ),
    Case(
        "closure-factory-in-a-table-of-lambdas",
        {
            "envs.py": FACTORY
            + """

environment_variables = {
    "FAKE_BACKEND": env_with_choices("FAKE_BACKEND", "auto", ["auto", "triton"]),
    "FAKE_FUSED": lambda: os.getenv("FAKE_FUSED", "1") == "1",
}
""",
        },
        (
            # A choice among names: a value, whatever the factory checks it against.
            Read(
                "FAKE_BACKEND",
                "envs.py",
                17,
                21,
                ReadKind.WRAPPER,
                "auto",
                V,
                via="envs.env_with_choices",
            ),
            Read("FAKE_FUSED", "envs.py", 18, 27, ReadKind.GETENV, "1", B, True, "0"),
        ),
    ),
    Case(
        "helper-nested-in-a-method",
        {
            "lm.py": """
            import os


            class LanguageModule:
                def set_backend(self):
                    def check_and_set(name, expected):
                        current = os.getenv(name)
                        assert current is None or current == str(expected)
                        os.environ[name] = str(expected)

                    check_and_set("FAKE_UNFUSED_ATTN", 1)
            """
        },
        (
            Read(
                "FAKE_UNFUSED_ATTN",
                "lm.py",
                11,
                9,
                ReadKind.WRAPPER,
                None,
                V,
                via="lm.LanguageModule.set_backend.<locals>.check_and_set",
            ),
        ),
    ),
    Case(
        "f-string-name-from-a-literal-argument",
        {
            "m.py": """
            import os


            def fused(kind):
                return os.getenv(f"FAKE_{kind}_FUSED", "1") != "0"


            ROPE = fused("ROPE")
            """
        },
        (Read("FAKE_ROPE_FUSED", "m.py", 8, 8, ReadKind.WRAPPER, "1", B, True, "0", "m.fused"),),
    ),
    Case(
        "loop-over-a-literal-tuple",
        {
            "m.py": """
            import os

            for name in ("FAKE_A", "FAKE_B"):
                print(os.environ.get(name))
            """
        },
        (
            Read("FAKE_A", "m.py", 4, 11, ReadKind.GET, None, V),
            Read("FAKE_B", "m.py", 4, 11, ReadKind.GET, None, V),
        ),
    ),
    Case(
        "comprehension-over-a-module-table",
        {
            "m.py": """
            import os

            NAMES = ("FAKE_C", "FAKE_D")
            FLAGS = {n: os.getenv(n, "0") == "1" for n in NAMES}
            """
        },
        (
            Read("FAKE_C", "m.py", 4, 13, ReadKind.GETENV, "0", B, False, "0"),
            Read("FAKE_D", "m.py", 4, 13, ReadKind.GETENV, "0", B, False, "0"),
        ),
    ),
    Case(
        "dict-of-names-to-defaults",
        {
            "m.py": """
            import os

            DEFAULTS = {"FAKE_E": "1", "FAKE_F": "0"}


            def flags():
                return [os.environ.get(k, d) != "0" for k, d in DEFAULTS.items()]
            """
        },
        (
            Read("FAKE_E", "m.py", 7, 13, ReadKind.GET, "1", B, True, "0"),
            Read("FAKE_F", "m.py", 7, 13, ReadKind.GET, "0", B, False, "0"),
        ),
    ),
    Case(
        "re-export-through-a-package-init",
        {
            "pkg/__init__.py": "",
            "pkg/utils/__init__.py": "from .import_utils import is_env_true\n",
            "pkg/utils/import_utils.py": """
            import os


            def is_env_true(name):
                return os.getenv(name, "false").lower() in ("true", "1", "yes", "on")
            """,
            "pkg/loading.py": """
            from .utils import is_env_true

            SYNC = is_env_true("FAKE_DEACTIVATE_ASYNC_LOAD")
            """,
        },
        (
            Read(
                "FAKE_DEACTIVATE_ASYNC_LOAD",
                "pkg/loading.py",
                3,
                8,
                ReadKind.WRAPPER,
                "false",
                B,
                False,
                "0",
                "pkg.utils.import_utils.is_env_true",
                Polarity.DISABLE,
            ),
        ),
    ),
    Case(
        "re-export-two-packages-up",
        {
            "pkg/__init__.py": "from .sub.flags import env_flag_x\n",
            "pkg/sub/__init__.py": "",
            "pkg/sub/flags.py": """
            import os


            def env_flag_x(name):
                return os.environ.get(name, "0") == "1"
            """,
            "pkg/m.py": """
            from pkg import env_flag_x

            DEEP = env_flag_x("FAKE_DEEP")
            """,
        },
        (
            Read(
                "FAKE_DEEP",
                "pkg/m.py",
                3,
                8,
                ReadKind.WRAPPER,
                "0",
                B,
                False,
                "0",
                "pkg.sub.flags.env_flag_x",
            ),
        ),
    ),
    Case(
        "star-import-of-a-wrapper-and-an-alias",
        {
            "pkg/__init__.py": "",
            "pkg/flags.py": """
            import os

            __all__ = ["flag"]


            def flag(name):
                return os.environ.get(name, "1") != "0"
            """,
            "pkg/a.py": """
            from pkg.flags import *
            from pkg.flags import flag as enabled

            A = flag("FAKE_STAR")
            B = enabled("FAKE_ALIAS")
            """,
        },
        (
            Read(
                "FAKE_ALIAS",
                "pkg/a.py",
                5,
                5,
                ReadKind.WRAPPER,
                "1",
                B,
                True,
                "0",
                "pkg.flags.flag",
            ),
            Read(
                "FAKE_STAR", "pkg/a.py", 4, 5, ReadKind.WRAPPER, "1", B, True, "0", "pkg.flags.flag"
            ),
        ),
    ),
    Case(
        "os-brought-by-a-star-import",
        {
            "pkg/__init__.py": "",
            "pkg/utils.py": "import os\n",
            "pkg/tuner.py": """
            from .utils import *


            def run_id():
                return os.environ["FAKE_RUN_ID"]
            """,
        },
        (Read("FAKE_RUN_ID", "pkg/tuner.py", 5, 12, ReadKind.SUBSCRIPT, None, V),),
    ),
    Case(
        "constant-imported-from-another-module",
        {
            "pkg/__init__.py": "",
            "pkg/names.py": 'FAKE_KNOB = "FAKE_IMPORTED"\nOTHER = "FAKE_ATTR"\n',
            "pkg/m.py": """
            import os

            from pkg import names
            from pkg.names import FAKE_KNOB

            A = os.getenv(FAKE_KNOB, "1") != "0"
            B = os.getenv(names.OTHER, "1") != "0"
            """,
        },
        (
            Read("FAKE_ATTR", "pkg/m.py", 7, 5, ReadKind.GETENV, "1", B, True, "0"),
            Read("FAKE_IMPORTED", "pkg/m.py", 6, 5, ReadKind.GETENV, "1", B, True, "0"),
        ),
    ),
    Case(
        "class-attribute-through-self-and-cls",
        {
            "m.py": """
            import os


            class Launcher:
                KNOB = "FAKE_SELF"
                OTHER = "FAKE_CLS"

                def enabled(self):
                    return os.getenv(self.KNOB, "1") != "0"

                @classmethod
                def other(cls):
                    return os.getenv(cls.OTHER, "0") == "1"
            """
        },
        (
            Read("FAKE_CLS", "m.py", 13, 16, ReadKind.GETENV, "0", B, False, "0"),
            Read("FAKE_SELF", "m.py", 9, 16, ReadKind.GETENV, "1", B, True, "0"),
        ),
    ),
    Case(
        "copies-of-the-environment-and-keys",
        {
            "m.py": """
            import os


            def launch():
                env = os.environ.copy()
                copied = dict(os.environ)
                if env.get("FAKE_COPY", "0") == "1":
                    return copied["FAKE_DICT"]
                return "FAKE_KEYS" in os.environ.keys()
            """
        },
        (
            Read("FAKE_COPY", "m.py", 7, 8, ReadKind.GET, "0", B, False, "0"),
            Read("FAKE_DICT", "m.py", 8, 16, ReadKind.SUBSCRIPT, None, V),
            Read("FAKE_KEYS", "m.py", 9, 12, ReadKind.CONTAINS, None, P, False),
        ),
    ),
    Case(
        "an-accessor-the-project-names",
        {
            "m.py": """
            from settings_service import read_knob

            FUSED = read_knob("FAKE_CONFIGURED", "1") != "0"
            """
        },
        (Read("FAKE_CONFIGURED", "m.py", 3, 9, ReadKind.ACCESSOR, "1", B, True, "0"),),
        Settings(accessors=("read_knob",)),
    ),
]


@pytest.mark.parametrize("case", CASES, ids=[c.id for c in CASES])
def test_reach(case: Case, tmp_path: Path) -> None:
    write_tree(tmp_path, case.files)
    result = scan([tmp_path], case.settings, root=tmp_path)
    assert (result.errors, result.dynamic) == ((), ())
    found = [
        Read(
            s.name,
            s.path,
            s.line,
            s.column,
            s.kind,
            s.default,
            s.gate.kind,
            s.default_on,
            s.gate.off_value,
            s.via,
            s.polarity,
        )
        for k in result.knobs
        for s in k.sites
    ]
    assert found == list(case.expected)


def test_a_configured_accessor_is_found_only_with_the_setting(tmp_path: Path) -> None:
    case = next(c for c in CASES if c.id == "an-accessor-the-project-names")
    write_tree(tmp_path, case.files)
    assert scan([tmp_path], root=tmp_path).knobs == ()


@pytest.mark.parametrize(
    ("dotted", "library"),
    [
        ("flashinfer.gemm.bmm_fp8", "FlashInfer"),
        ("flashinfer.jit.core.logger", None),
        ("flashinfer.autotuner._collect_metadata", None),
        ("cutlass.cute.runtime.find_runtime_libraries", None),
        ("cutlass.cute.compile", "CUTLASS's CuTe DSL"),
        ("vllm._custom_ops.rms_norm", "vLLM's custom ops"),
        ("sglang.jit_kernel.rope.apply_rope", "SGLang's JIT kernels"),
        ("torch.distributed._symmetric_memory.get_symm_mem_workspace", "PyTorch symmetric memory"),
        ("torch.distributed.all_gather_into_tensor", None),
        ("torch.distributed._symmetric_memory.enable_symm_mem_for_group", None),
        (
            "transformers.integrations.hub_kernels.get_kernel",
            "Hugging Face kernels, through transformers",
        ),
        ("transformers.integrations.hub_kernels.is_kernel", None),
        ("transformers.integrations.hub_kernels.allow_all_hub_kernels", None),
        # huggingface/kernels 8ac69fc kernels/src/kernels/backends.py:242-245: the CANN version
        ("torch_npu.utils.collect_env.get_cann_version", None),
        ("torch_npu.npu_rms_norm", "torch_npu (Ascend fused operators)"),
        # Dao-AILab/causal-conv1d causal_conv1d/causal_conv1d_interface.py: its CUDA
        # extension, a top-level module (xtuner b934f46 ops/gated_deltanet/causal_conv1d.py:3)
        ("causal_conv1d_cuda.causal_conv1d_fwd", "causal-conv1d"),
        ("numpy.dot", None),
    ],
)
def test_library_of_names_kernel_entry_points_only(dotted: str, library: str | None) -> None:
    assert library_of(dotted) == library


@pytest.mark.parametrize(
    ("text", "found"),
    [
        (b"from pkg.config import enabled\n", True),
        (b"from pkg import config as cfg\n", True),
        (b"import pkg.config\n", True),
        (b"from pkg import (\n    other,\n    config,\n)\n", True),
        (b'm = importlib.import_module("pkg.config")\n', True),
        (b"import pkg\nx = pkg.config.enabled\n", True),  # the dotted home.name
        (b"from pkg import (other)\nconfig = 1\nenabled = 2\n", False),
        (b"# see config for what enabled means\n", False),
    ],
)
def test_a_module_names_a_carried_value_through_an_import_of_its_home(
    text: bytes, found: bool
) -> None:
    assert _imports(text, b"config", b"enabled") is found
