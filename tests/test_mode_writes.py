"""The settings a tree's own deterministic mode writes for the processes it starts: a known
value written under a test that only that mode takes becomes a stack setting of the recipe.

Each case is a small tree on disk in the shape of the real code it stands for (the file it
was read from is named above it), scanned; the settings found, and what `knobs init` and the
bitwise export make of them, are checked."""

from __future__ import annotations

from pathlib import Path

import pytest
from click.testing import CliRunner

from knobregistry.cli import main
from scanner import Role, scan
from tests.conftest import write_tree

# sgl-project/sglang (the pinned tree), srt/environ.py: the descriptor registry, an EnvBool
# whose ``set`` writes the variable.
ENVIRON = (
    "import os\n\n\n"
    "class EnvField:\n"
    "    def __init__(self, default):\n"
    "        self.default = default\n\n"
    "    def __set_name__(self, owner, name):\n"
    "        self.name = name\n\n"
    "    def get(self):\n"
    "        value = os.getenv(self.name)\n"
    "        if value is None:\n"
    "            return self.default\n"
    "        return self.parse(value)\n\n"
    "    def set(self, value):\n"
    "        os.environ[self.name] = str(value)\n\n\n"
    "class EnvBool(EnvField):\n"
    "    def parse(self, value):\n"
    '        return value.lower() in ("1", "true")\n\n\n'
    "class EnvInt(EnvField):\n"
    "    def parse(self, value):\n"
    "        return int(value)\n\n\n"
    "class Envs:\n"
    "    SGLANG_ENABLE_DETERMINISTIC_INFERENCE = EnvBool(False)\n"
    "    SGLANG_DETERMINISTIC_NCCL_NCHANNELS = EnvInt(8)\n\n\n"
    "envs = Envs()\n"
)
# srt/distributed/device_communicators/custom_all_reduce.py:409 and
# srt/distributed/parallel_state.py:490: the env switch read, and handed on as
# deterministic= (what makes it the framework's deterministic mode).
COLLECTIVES = (
    "import sgl_kernel\n\n"
    "from pkg.environ import envs\n\n\n"
    "def all_reduce(x):\n"
    "    det = envs.SGLANG_ENABLE_DETERMINISTIC_INFERENCE.get()\n"
    "    return sgl_kernel.all_reduce(x, deterministic=det)\n"
)
# srt/arg_groups/serving_hook.py:435-446: the server argument handed on into the env switch.
SERVING = (
    "from pkg.environ import envs\n\n\n"
    "def handle_environment_variables(server_args):\n"
    "    cfg = server_args\n"
    "    envs.SGLANG_ENABLE_DETERMINISTIC_INFERENCE.set(\n"
    '        "1" if cfg.enable_deterministic_inference else "0"\n'
    "    )\n"
)
# srt/arg_groups/attention_hook.py:580-700: under the server argument, with tp_size > 1 on
# CUDA, NCCL's algorithm and channel count pinned for the processes the server starts.
HOOK = (
    "import os\n\n"
    "from pkg.environ import envs\n\n\n"
    "def is_hip():\n"
    "    return False\n\n\n"
    "def handle_deterministic_inference(server_args):\n"
    "    cfg = server_args\n"
    "    if cfg.rl_on_policy_target is not None:\n"
    '        os.environ["NCCL_NVLS_ENABLE"] = "0"\n'
    "    if cfg.enable_deterministic_inference:\n"
    "        if cfg.tp_size > 1:\n"
    "            if is_hip():\n"
    "                pass\n"
    "            else:\n"
    '                os.environ["NCCL_ALGO"] = "allreduce:tree"\n'
    "                nchannels = str(envs.SGLANG_DETERMINISTIC_NCCL_NCHANNELS.get())\n"
    '                os.environ["NCCL_MIN_NCHANNELS"] = nchannels\n'
    '                os.environ["NCCL_MAX_NCHANNELS"] = nchannels\n'
    '                os.environ["NCCL_BUFFSIZE"] = str(cfg.tp_size * 4096)\n'
)
SGLANG = {
    "pkg/__init__.py": "",
    "pkg/environ.py": ENVIRON,
    "pkg/collectives.py": COLLECTIVES,
    "pkg/serving_hook.py": SERVING,
    "pkg/attention_hook.py": HOOK,
}


def _found(root: Path, files: dict[str, str]) -> list[tuple[str, str, str, int, int]]:
    write_tree(root, files)
    result = scan([root], root=root, jobs=1)
    return [(m.name, m.value, m.path, m.line, m.test_line) for m in result.mode_writes]


def test_the_settings_the_deterministic_mode_writes_are_found(tmp_path: Path) -> None:
    write_tree(tmp_path, SGLANG)
    result = scan([tmp_path], root=tmp_path, jobs=1)
    mode = result.knob("SGLANG_ENABLE_DETERMINISTIC_INFERENCE")
    assert mode is not None and mode.role is Role.DETERMINISM
    hook = "pkg/attention_hook.py"
    # NCCL_BUFFSIZE: a value the run computes; NCCL_NVLS_ENABLE: under another test.
    assert [(m.name, m.value, m.path, m.line, m.test_line) for m in result.mode_writes] == [
        ("NCCL_ALGO", "allreduce:tree", hook, 19, 14),
        ("NCCL_MAX_NCHANNELS", "8", hook, 22, 14),
        ("NCCL_MIN_NCHANNELS", "8", hook, 21, 14),
    ]
    first = result.mode_writes[0]
    assert first.mode.startswith(
        "`cfg.enable_deterministic_inference` at pkg/attention_hook.py:14, which "
        "pkg/serving_hook.py:6 hands on as "
        "SGLANG_ENABLE_DETERMINISTIC_INFERENCE, a deterministic mode ("
    )


def test_a_test_that_reads_the_env_switch_itself_is_the_mode(tmp_path: Path) -> None:
    # vllm (pinned), config/vllm.py:842-860: the env switch tested with other conditions.
    hook = (
        "import os\n\n"
        "from pkg.environ import envs\n\n\n"
        "def configure(platform_ok):\n"
        "    if envs.SGLANG_ENABLE_DETERMINISTIC_INFERENCE.get() and platform_ok:\n"
        '        os.environ["NCCL_ALGO"] = "Ring"\n'
        "    else:\n"
        '        os.environ["NCCL_PROTO"] = "LL128"\n'
    )
    files = {**SGLANG, "pkg/attention_hook.py": hook, "pkg/serving_hook.py": ""}
    found = _found(tmp_path, files)
    assert found == [("NCCL_ALGO", "Ring", "pkg/attention_hook.py", 8, 7)]


@pytest.mark.parametrize(
    ("hook", "why"),
    [
        (
            "import os\n\n\ndef configure(cfg):\n"
            "    if cfg.enable_fast_path:\n"
            '        os.environ["NCCL_ALGO"] = "Tree"\n',
            "a field no code hands on into a deterministic mode",
        ),
        (
            "import os\n\n\ndef configure(cfg):\n"
            "    if not cfg.enable_deterministic_inference:\n"
            '        os.environ["NCCL_ALGO"] = "Tree"\n',
            "the side the mode does not take",
        ),
        (
            "import os\n\n\ndef configure(cfg):\n"
            "    if cfg.enable_deterministic_inference:\n"
            '        os.environ["NCCL_ALGO"] = cfg.algo\n',
            "a value the run computes",
        ),
        (
            "import os\n\n\ndef configure(cfg, hip):\n"
            "    if cfg.enable_deterministic_inference:\n"
            "        if hip:\n"
            '            os.environ["NCCL_ALGO"] = "Ring"\n'
            "        else:\n"
            '            os.environ["NCCL_ALGO"] = "allreduce:tree"\n',
            "two values under the mode",
        ),
        (
            "import os\n\n\ndef configure(cfg):\n"
            "    if cfg.enable_deterministic_inference:\n"
            '        os.environ["SGLANG_DETERMINISTIC_NCCL_NCHANNELS"] = "4"\n',
            "a variable the tree reads: its own knob",
        ),
    ],
)
def test_no_setting_without_the_mode_and_one_known_value(
    tmp_path: Path, hook: str, why: str
) -> None:
    found = _found(tmp_path, {**SGLANG, "pkg/attention_hook.py": hook})
    assert found == [], why


def test_init_and_export_write_the_mode_settings_as_stack_settings(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    write_tree(tmp_path, SGLANG)
    monkeypatch.chdir(tmp_path)
    runner = CliRunner()
    init = runner.invoke(main, ["init", "."])
    assert init.exit_code == 0, init.output
    assert (
        "Stack settings the project's own deterministic mode writes: NCCL_ALGO, "
        "NCCL_MAX_NCHANNELS, NCCL_MIN_NCHANNELS; role `stack`, set by the bitwise profile to "
        "the value the mode writes.\n"
    ) in init.stdout
    registry = (tmp_path / "registry.yaml").read_text()
    assert (
        "  NCCL_ALGO:\n"
        "    description: \"the value the tree's own deterministic mode writes for the "
        'processes it starts"\n'
        "    role: stack\n"
        '    deterministic: "allreduce:tree"\n'
        "    source: \"pkg/attention_hook.py:19 writes NCCL_ALGO='allreduce:tree' under "
        "`cfg.enable_deterministic_inference` at pkg/attention_hook.py:14, which "
        "pkg/serving_hook.py:6 hands on as SGLANG_ENABLE_DETERMINISTIC_INFERENCE, a "
        "deterministic mode ("
    ) in registry
    exported = runner.invoke(main, ["export", "--profile", "bitwise"])
    assert exported.exit_code == 0, exported.output
    lines = [line for line in exported.stdout.splitlines() if line.startswith("export ")]
    assert lines == [
        "export NCCL_ALGO='allreduce:tree'",
        "export NCCL_MAX_NCHANNELS='8'",
        "export NCCL_MIN_NCHANNELS='8'",
        "export SGLANG_ENABLE_DETERMINISTIC_INFERENCE='1'",
    ]
    checked = runner.invoke(main, ["check"])
    assert checked.exit_code == 0, checked.output
