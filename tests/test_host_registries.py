"""A plugin's reads of its host framework's registry, and what the plugin's deterministic
mode writes in a function its test calls.

Each tree is a small copy on disk of vllm-project/vllm-ascend 182b75ea (file:line above
each file), scanned; the knob, its role, the mode's settings, and what `knobs init` and the
bitwise export make of them are checked."""

from __future__ import annotations

from pathlib import Path

import pytest
from click.testing import CliRunner

from knobregistry.cli import main
from scanner import ReadKind, Role, scan
from tests.conftest import write_tree
from tests.scanned import bitwise_exports

# vllm_ascend/batch_invariant.py:19-25, :76-92, :98-105, :140-162: the mode reads vLLM's
# registry through ``import vllm.envs as envs``; its setup, where its ops are available,
# writes the collectives' deterministic settings and calls torch's deterministic API.
BATCH_INVARIANT = (
    "import os\n\n"  # 1
    "import torch\n"
    "import vllm.envs as envs\n"
    "from vllm.logger import logger\n"
    "from vllm.triton_utils import HAS_TRITON\n\n\n"  # 6
    "def override_envs_for_invariance():\n"  # 9
    '    os.environ["HCCL_DETERMINISTIC"] = "strict"\n'
    '    os.environ["LCCL_DETERMINISTIC"] = "1"\n'
    "    torch.use_deterministic_algorithms(True, warn_only=True)\n\n\n"
    "def enable_batch_invariant_mode():\n"  # 15
    '    logger.debug("registering")\n\n\n'
    "def init_batch_invariance():\n"  # 19
    "    if envs.VLLM_BATCH_INVARIANT:\n"
    "        if HAS_TRITON:\n"
    '            logger.info("Enabling batch-invariant mode.")\n'
    "            override_envs_for_invariance()\n"
    "            enable_batch_invariant_mode()\n"
    "        else:\n"
    '            logger.warning("Batch-invariant mode requested but not available.")\n'
)
# vllm_ascend/worker/worker.py:60, :1051-1053: every worker initialises the mode.
WORKER = (
    "from vllm_ascend.batch_invariant import init_batch_invariance\n\n\n"
    "class NPUWorker:\n"
    "    def _init_worker_distributed_environment(self):\n"
    "        init_batch_invariance()\n"
)
# tests/ut/test_batch_invariant.py:30-38: a unit test calls the setup and reads what it wrote.
UNIT_TEST = (
    "import os\n\n"
    "import vllm_ascend.batch_invariant as batch_invariant\n\n\n"
    "def test_override_envs_for_invariance():\n"
    "    batch_invariant.override_envs_for_invariance()\n"
    '    assert os.environ["HCCL_DETERMINISTIC"] == "strict"\n'
    '    assert os.environ["LCCL_DETERMINISTIC"] == "1"\n'
)
PLUGIN = {
    "vllm_ascend/__init__.py": "",
    "vllm_ascend/batch_invariant.py": BATCH_INVARIANT,
    "vllm_ascend/worker/__init__.py": "",
    "vllm_ascend/worker/worker.py": WORKER,
    "tests/ut/test_batch_invariant.py": UNIT_TEST,
}


def test_a_read_of_the_host_registry_is_a_site_with_the_host_declaration(
    tmp_path: Path,
) -> None:
    write_tree(tmp_path, PLUGIN)
    result = scan([tmp_path], root=tmp_path, jobs=1)
    knob = result.knob("VLLM_BATCH_INVARIANT")
    assert knob is not None
    site = next(s for s in knob.sites if s.path == "vllm_ascend/batch_invariant.py")
    # vllm-project/vllm@v0.33.0 vllm/envs.py:638: bool(int(os.getenv(N, "0")))
    assert (site.line, site.column, site.kind, site.default, site.via) == (
        20,
        8,
        ReadKind.FIELD,
        "0",
        "vllm.envs",
    )
    assert (knob.default_on, knob.on_value, knob.off_value) == (False, "1", "0")
    assert knob.role is Role.DETERMINISM
    assert knob.role_reason == (
        "VLLM_BATCH_INVARIANT='1' runs the branch of `envs.VLLM_BATCH_INVARIANT` at "
        "vllm_ascend/batch_invariant.py:20, which reaches calls override_envs_for_invariance "
        "(vllm_ascend/batch_invariant.py:9) -> torch.use_deterministic_algorithms(True) at "
        "vllm_ascend/batch_invariant.py:12: a deterministic mode"
    )


@pytest.mark.parametrize(
    ("spelling", "read"),
    [
        ("from vllm import envs\n", "envs.VLLM_BATCH_INVARIANT"),
        ("from vllm import envs as envs_vllm\n", "envs_vllm.VLLM_BATCH_INVARIANT"),
        ("import vllm.envs\n", "vllm.envs.VLLM_BATCH_INVARIANT"),
        ("from vllm.envs import VLLM_BATCH_INVARIANT\n", "VLLM_BATCH_INVARIANT"),
    ],
)
def test_each_spelling_of_the_host_module_is_read(tmp_path: Path, spelling: str, read: str) -> None:
    # vllm_ascend/lora/fused_moe.py:34 and ascend_forward_context.py:8 spell it these ways.
    code = f"{spelling}\n\ndef sample():\n    return 1 if {read} else 0\n"
    write_tree(tmp_path, {"pkg/__init__.py": "", "pkg/sampler.py": code})
    result = scan([tmp_path], root=tmp_path, jobs=1)
    knob = result.knob("VLLM_BATCH_INVARIANT")
    assert knob is not None
    assert [(s.path, s.line, s.via) for s in knob.sites] == [("pkg/sampler.py", 5, "vllm.envs")]


@pytest.mark.parametrize(
    ("code", "why"),
    [
        (
            "import vllm_ascend.envs as envs\n\n\ndef f():\n    return envs.VLLM_BATCH_INVARIANT\n",
            "another module named envs",
        ),
        (
            "import vllm.envs as envs\n\n\ndef f(envs):\n    return envs.VLLM_BATCH_INVARIANT\n",
            "a parameter that hides the module",
        ),
        (
            "import vllm.envs as envs\n\n\ndef f():\n    return envs.VLLM_NO_SUCH_NAME\n",
            "a name no host declaration holds",
        ),
    ],
)
def test_no_site_where_the_load_is_not_the_host_registry(
    tmp_path: Path, code: str, why: str
) -> None:
    write_tree(tmp_path, {"pkg/__init__.py": "", "pkg/m.py": code})
    result = scan([tmp_path], root=tmp_path, jobs=1)
    assert [k.name for k in result.knobs] == [], why


def test_a_tree_that_holds_the_registry_reads_its_own_file(tmp_path: Path) -> None:
    # vllm (pinned) itself: vllm/envs.py:638 is its own site; its readers add none.
    registry = (
        "import os\n\nenvironment_variables = {\n"
        '    "VLLM_BATCH_INVARIANT": lambda: bool(int(os.getenv("VLLM_BATCH_INVARIANT", "0"))),\n'
        "}\n"
    )
    reader = "import vllm.envs as envs\n\n\ndef f():\n    return envs.VLLM_BATCH_INVARIANT\n"
    write_tree(
        tmp_path, {"vllm/__init__.py": "", "vllm/envs.py": registry, "vllm/reader.py": reader}
    )
    result = scan([tmp_path], root=tmp_path, jobs=1)
    knob = result.knob("VLLM_BATCH_INVARIANT")
    assert knob is not None
    assert [(s.path, s.via) for s in knob.sites] == [("vllm/envs.py", None)]


def test_an_own_read_of_a_mode_set_where_available_is_a_mode_with_its_settings(
    tmp_path: Path,
) -> None:
    """The same mode read through the tree's own ``os.getenv``: its setup sits under an
    availability test whose other arm only warns, and its writes in a function it calls."""
    own = BATCH_INVARIANT.replace(
        "    if envs.VLLM_BATCH_INVARIANT:\n",
        '    if os.getenv("PLUGIN_BATCH_INVARIANT", "0") == "1":\n',
    )
    write_tree(tmp_path, {**PLUGIN, "vllm_ascend/batch_invariant.py": own})
    result = scan([tmp_path], root=tmp_path, jobs=1)
    knob = result.knob("PLUGIN_BATCH_INVARIANT")
    assert knob is not None and knob.role is Role.DETERMINISM
    assert [(m.name, m.value, m.line, m.test_line) for m in result.mode_writes] == [
        ("HCCL_DETERMINISTIC", "strict", 10, 20),
        ("LCCL_DETERMINISTIC", "1", 11, 20),
    ]


def test_a_mode_whose_other_arm_does_more_than_warn_is_no_mode(tmp_path: Path) -> None:
    """Where the other arm of the availability test runs code of its own, the setup is
    one of two paths the mode may take: no deterministic mode is proposed from it."""
    other = BATCH_INVARIANT.replace(
        '            logger.warning("Batch-invariant mode requested but not available.")\n',
        "            enable_batch_invariant_mode()\n",
    )
    write_tree(tmp_path, {**PLUGIN, "vllm_ascend/batch_invariant.py": other})
    result = scan([tmp_path], root=tmp_path, jobs=1)
    knob = result.knob("VLLM_BATCH_INVARIANT")
    assert knob is not None and knob.role is not Role.DETERMINISM
    assert result.mode_writes == ()


def test_the_writes_of_a_function_called_only_under_the_mode_are_its_settings(
    tmp_path: Path,
) -> None:
    write_tree(tmp_path, PLUGIN)
    result = scan([tmp_path], root=tmp_path, jobs=1)
    path = "vllm_ascend/batch_invariant.py"
    assert [(m.name, m.value, m.path, m.line, m.test_line) for m in result.mode_writes] == [
        ("HCCL_DETERMINISTIC", "strict", path, 10, 20),
        ("LCCL_DETERMINISTIC", "1", path, 11, 20),
    ]
    assert result.mode_writes[0].mode.startswith(
        "override_envs_for_invariance (vllm_ascend/batch_invariant.py:9), called only under "
        "`envs.VLLM_BATCH_INVARIANT` at vllm_ascend/batch_invariant.py:20, which reads "
        "VLLM_BATCH_INVARIANT, a deterministic mode ("
    )


@pytest.mark.parametrize(
    ("caller", "why"),
    [
        (
            "from vllm_ascend.batch_invariant import override_envs_for_invariance\n\n\n"
            "def setup():\n    override_envs_for_invariance()\n",
            "a call outside the mode",
        ),
        (
            "from vllm_ascend.batch_invariant import override_envs_for_invariance\n\n"
            "HOOKS = [override_envs_for_invariance]\n",
            "handed on: it may be called anywhere",
        ),
    ],
)
def test_no_setting_where_the_function_runs_outside_the_mode(
    tmp_path: Path, caller: str, why: str
) -> None:
    write_tree(tmp_path, {**PLUGIN, "vllm_ascend/other.py": caller})
    result = scan([tmp_path], root=tmp_path, jobs=1)
    assert result.mode_writes == (), why


def test_a_conditional_write_in_a_called_function_counts_as_the_mode_s(tmp_path: Path) -> None:
    """vllm (pinned) vllm/model_executor/determinism/batch_invariant.py:1391-1396, :1330-1335,
    :1433-1438: under the mode, override_envs_for_invariance writes CUBLAS_WORKSPACE_CONFIG
    ':4096:8' and enable_batch_invariant_mode, on Hopper, ':16:8' under a test of its own:
    two values, so no setting; the collective's '1stage' is one."""
    vllm = (
        "import os\n\n"
        "import torch\n"
        "import vllm.envs as envs\n\n\n"
        "def enable_batch_invariant_mode(hopper):\n"
        "    if hopper:\n"
        '        os.environ["CUBLAS_WORKSPACE_CONFIG"] = ":16:8"\n\n\n'
        "def override_envs_for_invariance():\n"
        '    os.environ["VLLM_CUSTOM_ALLREDUCE_ALGO"] = "1stage"\n'
        '    os.environ["CUBLAS_WORKSPACE_CONFIG"] = ":4096:8"\n'
        "    torch.use_deterministic_algorithms(True)\n\n\n"
        "def init_batch_invariance(hopper):\n"
        "    if envs.VLLM_BATCH_INVARIANT:\n"
        "        override_envs_for_invariance()\n"
        "        enable_batch_invariant_mode(hopper)\n"
    )
    write_tree(tmp_path, {"pkg/__init__.py": "", "pkg/batch_invariant.py": vllm})
    result = scan([tmp_path], root=tmp_path, jobs=1)
    assert [(m.name, m.value, m.line) for m in result.mode_writes] == [
        ("VLLM_CUSTOM_ALLREDUCE_ALGO", "1stage", 13)
    ]


def test_init_and_export_write_the_mode_and_its_settings(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The unit test's reads of HCCL_DETERMINISTIC and LCCL_DETERMINISTIC check the write:
    no knob of the project's code, so the mode's settings take their place."""
    write_tree(tmp_path, PLUGIN)
    lines = [line for line in bitwise_exports(tmp_path, monkeypatch) if line.startswith("export ")]
    assert lines == [
        "export HCCL_DETERMINISTIC='strict'",
        "export LCCL_DETERMINISTIC='1'",
        "export PYTHONHASHSEED='0'",
        "export TORCH_COMPILE_DISABLE='1'",
        "export VLLM_BATCH_INVARIANT='1'",
        "export VLLM_ENABLE_V1_MULTIPROCESSING='0'",
    ]
    checked = CliRunner().invoke(main, ["check"])
    assert checked.exit_code == 0, checked.output
