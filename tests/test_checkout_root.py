"""A scanned tree whose root holds ``__init__.py`` beside its project file.

hao-ai-lab/FastVideo 2f3d4074 has /__init__.py (ComfyUI node mappings) beside /pyproject.toml;
its modules import ``fastvideo.envs`` (fastvideo/attention/selector.py:14). The root is where
imports start: its folder's name is no package, and the lazy table's entries are followed to
the modules that read them (``envs.FASTVIDEO_FA4``, fastvideo/envs.py:219-220, tested at
fastvideo/attention/utils/flash_attn_no_pad.py:28)."""

from __future__ import annotations

from pathlib import Path

from scanner import Polarity, Role
from scanner.source.files import module_name
from tests.scanned import role_facts, scanned_knob

# fastvideo/envs.py:75, :219-220, :332-336: a dict of lambdas behind a module __getattr__.
_ENVS = (
    "import os\n\n"
    "environment_variables = {\n"
    '    "PKG_FA4":\n'
    '    lambda: os.getenv("PKG_FA4", "0") != "0",\n'
    "}\n\n\n"
    "def __getattr__(name: str):\n"
    "    if name in environment_variables:\n"
    "        return environment_variables[name]()\n"
    '    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")\n'
)

# fastvideo/attention/utils/flash_attn_no_pad.py:8, :28 and flash_attn_cute.py:381-396:
# '1' calls flash-attn's CuTe kernel, unset the plain PyTorch path.
_ATTENTION = (
    "import torch\n\n"
    "import pkg.envs as envs\n\n\n"
    "def attention(q, k, v):\n"
    "    if envs.PKG_FA4:\n"
    "        from flash_attn import flash_attn_varlen_func\n\n"
    "        return flash_attn_varlen_func(q, k, v)\n"
    "    return torch.nn.functional.scaled_dot_product_attention(q, k, v)\n"
)

CHECKOUT = {
    "__init__.py": "WEB_DIRECTORY = './web'\n",
    "pyproject.toml": '[project]\nname = "pkg"\n',
    "pkg/__init__.py": "",
    "pkg/envs.py": _ENVS,
    "pkg/attention.py": _ATTENTION,
}


def test_a_lazy_table_entry_is_followed_under_a_checkout_with_its_own_init(
    tmp_path: Path,
) -> None:
    root = tmp_path / "checkout"
    knob = scanned_knob(root, CHECKOUT, "PKG_FA4")
    assert role_facts(knob) == (
        Role.KERNEL,
        Polarity.ENABLE,
        "0",
        "PKG_FA4='1' runs the branch of `envs.PKG_FA4` at pkg/attention.py:7, which reaches "
        "FlashAttention (flash_attn.flash_attn_varlen_func) at pkg/attention.py:10; unset, it "
        "does not",
    )


def test_module_names_start_inside_a_checkout(tmp_path: Path) -> None:
    for name, files in (("checkout", CHECKOUT), ("package", _without(CHECKOUT, "pyproject.toml"))):
        (tmp_path / name / "pkg").mkdir(parents=True)
        for rel, text in files.items():
            (tmp_path / name / rel).write_text(text)
    root = tmp_path / "checkout"
    assert module_name(root / "pkg/envs.py", root) == "pkg.envs"
    assert module_name(root / "pkg/__init__.py", root) == "pkg"
    assert module_name(root / "__init__.py", root) == "__init__"
    # A package scanned as the root, with no project file, keeps its own name.
    root = tmp_path / "package"
    assert module_name(root / "pkg/envs.py", root) == "package.pkg.envs"


def _without(files: dict[str, str], rel: str) -> dict[str, str]:
    return {k: v for k, v in files.items() if k != rel}
