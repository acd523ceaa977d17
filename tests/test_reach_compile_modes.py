"""A variable that picks torch.compile's mode, an autotuning mode against the default, and a
variable put in a field of a config object built inside a method: each followed to the
compiled path it decides.

Each tree is a small copy, on disk, of the real code named above it (hao-ai-lab/FastVideo
2f3d4074); it is scanned and the role, polarity, off value and evidence are checked."""

from __future__ import annotations

from pathlib import Path

import pytest

from scanner import Polarity, Role
from tests.scanned import bitwise_exports, role_facts, scanned_knob

# fastvideo/api/schema.py:34-46: the typed torch.compile configuration.
SCHEMA = (
    "from dataclasses import dataclass\n\n\n"
    "@dataclass\n"
    "class CompileConfig:\n"
    "    enabled: bool = False\n"
    "    mode: str | None = None\n"
    "    text_encoder_enabled: bool | None = None\n"
)

# apps/dreamverse/dreamverse/config.py:116-124, :173 (the module flag), and
# video_generation.py:279-280, :301-309 (the mode it picks, handed to CompileConfig in a method).
MODE = {
    "fastvideo/__init__.py": "",
    "fastvideo/api/__init__.py": "",
    "fastvideo/api/schema.py": SCHEMA,
    "dreamverse/__init__.py": "",
    "dreamverse/config.py": (
        "import os\n\n\n"
        "def _env_bool(name: str, default: bool) -> bool:\n"
        "    value = os.getenv(name)\n"
        "    if value is None:\n"
        "        return default\n"
        "    normalized = value.strip().lower()\n"
        '    if normalized in {"1", "true", "yes", "on"}:\n'
        "        return True\n"
        '    if normalized in {"0", "false", "no", "off"}:\n'
        "        return False\n"
        "    return default\n\n\n"
        'DREAMVERSE_MAX_AUTOTUNE = _env_bool("DREAMVERSE_MAX_AUTOTUNE", True)\n'
    ),
    "dreamverse/video_generation.py": (
        "from dreamverse.config import DREAMVERSE_MAX_AUTOTUNE\n"
        "from fastvideo.api.schema import CompileConfig\n\n\n"
        "class Generator:\n"
        "    def load(self):\n"
        '        compile_mode = "max-autotune-no-cudagraphs" if DREAMVERSE_MAX_AUTOTUNE else None\n'
        "        return CompileConfig(\n"
        "            enabled=True,\n"
        "            mode=compile_mode,\n"
        "        )\n"
    ),
}

TUNED = (
    "unset, it runs `DREAMVERSE_MAX_AUTOTUNE` at dreamverse/video_generation.py:7, which "
    "reaches torch.compile's autotuning mode 'max-autotune-no-cudagraphs' (it turns on "
    "Inductor's max_autotune, torch/_inductor/__init__.py:362), handed as mode= to "
    "CompileConfig at dreamverse/video_generation.py:10; "
    "DREAMVERSE_MAX_AUTOTUNE='0' leaves that branch, and what runs instead reaches no such "
    "kernel"
)


def test_a_flag_that_picks_an_autotuning_compile_mode_is_a_kernel_switch(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    knob = scanned_knob(tmp_path, MODE, "DREAMVERSE_MAX_AUTOTUNE")
    assert role_facts(knob) == (Role.KERNEL, Polarity.ENABLE, "0", TUNED)
    assert "export DREAMVERSE_MAX_AUTOTUNE='0'" in bitwise_exports(tmp_path, monkeypatch)


def test_a_flag_that_picks_between_two_plain_modes_is_no_kernel_switch(tmp_path: Path) -> None:
    files = dict(MODE)
    files["dreamverse/video_generation.py"] = MODE["dreamverse/video_generation.py"].replace(
        '"max-autotune-no-cudagraphs"', '"reduce-overhead"'
    )
    knob = scanned_knob(tmp_path, files, "DREAMVERSE_MAX_AUTOTUNE")
    assert knob.role is not Role.KERNEL


# fastvideo/api/compat.py:241-253, :311 (the config's fields put in the args' keywords),
# fastvideo_args.py (the args class), pipelines/composed_pipeline_base.py:185-216 (the
# compiled path chosen by the args' field).
LIBRARY = {
    "fastvideo/__init__.py": "",
    "fastvideo/api/__init__.py": "",
    "fastvideo/api/schema.py": SCHEMA,
    "fastvideo/api/compat.py": (
        "from fastvideo.fastvideo_args import FastVideoArgs\n\n\n"
        "def generator_config_to_fastvideo_args(config):\n"
        "    engine = config.engine\n"
        "    kwargs = {\n"
        '        "model_path": config.model_path,\n'
        '        "enable_torch_compile": engine.compile.enabled,\n'
        "    }\n"
        "    if engine.compile.text_encoder_enabled is not None:\n"
        '        kwargs["enable_torch_compile_text_encoder"] = ('
        "engine.compile.text_encoder_enabled)\n"
        "    return FastVideoArgs.from_kwargs(**kwargs)\n"
    ),
    "fastvideo/fastvideo_args.py": (
        "from dataclasses import dataclass\n\n\n"
        "@dataclass\n"
        "class FastVideoArgs:\n"
        "    model_path: str = ''\n"
        "    enable_torch_compile: bool = False\n"
        "    enable_torch_compile_text_encoder: bool = False\n\n"
        "    @classmethod\n"
        "    def from_kwargs(cls, **kwargs):\n"
        "        return cls(**kwargs)\n"
    ),
    "fastvideo/pipelines/__init__.py": "",
    "fastvideo/pipelines/composed_pipeline_base.py": (
        "import torch\n\n\n"
        "class ComposedPipelineBase:\n"
        "    def __init__(self, fastvideo_args, modules):\n"
        "        self.fastvideo_args = fastvideo_args\n"
        "        self.modules = modules\n\n"
        "    def _maybe_compile_pipeline_module(self, module_name):\n"
        "        module = self.modules[module_name]\n"
        "        self.modules[module_name] = torch.compile(module)\n\n"
        "    def post_init(self):\n"
        "        compile_text_encoder = (self.fastvideo_args.enable_torch_compile_text_encoder)\n"
        "        if compile_text_encoder:\n"
        '            self._maybe_compile_pipeline_module(module_name="text_encoder")\n'
    ),
}

# apps/dreamverse/dreamverse/video_generation.py:279, :301-309: the variable read in a method
# and put in the config's fields there.
IN_METHOD = {
    **LIBRARY,
    "dreamverse/__init__.py": "",
    "dreamverse/video_generation.py": (
        "import os\n\n\n"
        "class Generator:\n"
        "    def load(self):\n"
        "        from fastvideo.api.schema import CompileConfig\n\n"
        '        enable_compile = os.getenv("ENABLE_TORCH_COMPILE", "1") == "1"\n'
        "        return CompileConfig(\n"
        "            enabled=enable_compile,\n"
        "            text_encoder_enabled=enable_compile,\n"
        "        )\n"
    ),
}

COMPILED = (
    "unset, it runs the branch of `compile_text_encoder` at "
    "fastvideo/pipelines/composed_pipeline_base.py:15, which reaches calls "
    "ComposedPipelineBase._maybe_compile_pipeline_module "
    "(fastvideo/pipelines/composed_pipeline_base.py:9) -> torch.compile at "
    "fastvideo/pipelines/composed_pipeline_base.py:11; ENABLE_TORCH_COMPILE='0' leaves that "
    "branch, and what runs instead reaches no such kernel"
)


def test_a_value_put_in_a_field_in_a_method_is_followed_to_its_reads(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    knob = scanned_knob(tmp_path, IN_METHOD, "ENABLE_TORCH_COMPILE")
    assert role_facts(knob) == (Role.KERNEL, Polarity.ENABLE, "0", COMPILED)
    assert "export ENABLE_TORCH_COMPILE='0'" in bitwise_exports(tmp_path, monkeypatch)
