"""A kernel library's own code that loads a module by path and returns it hands on the
library's kernel (scanner.reach.library_loads), and a call on a parameter typed with a
``typing.Protocol`` of the tree runs the method of each class that fits it
(scanner.reach.protocols): together, Hugging Face kernels' DISABLE_KERNEL_MAPPING is a
kernel switch whose "1" keeps the module's own forward."""

from __future__ import annotations

from pathlib import Path

import pytest

from scanner import Polarity, Role, scan
from tests.conftest import write_tree

# huggingface/kernels 8ac69fc, kernels/src/kernels: layer/globals.py:6 (the switch),
# layer/repos.py:14-15 (the protocol), layer/layer.py:37-107 (LayerRepository.load ->
# get_kernel), :416-485 (kernelize_layer: "1" keeps the module's forward, else the Hub
# layer's), :566-609 (_replace_forward, _get_layer_memoize: repo.load()), load.py:47-123
# (get_kernel), importer.py:94-122 (_import_from_path: exec_module, return module).
HUB_KERNELS = {
    "src/kernels/__init__.py": "from kernels.load import get_kernel\n",
    "src/kernels/importer.py": (
        "import importlib\nimport sys\n\n\n"
        "def _import_from_path(variant_path, repo_info=None):\n"
        '    file_path = variant_path / "__init__.py"\n'
        '    spec = importlib.util.spec_from_file_location("kernel", file_path)\n'
        "    module = importlib.util.module_from_spec(spec)\n"
        '    sys.modules["kernel"] = module\n'
        "    spec.loader.exec_module(module)\n"
        "    return module\n"
    ),
    "src/kernels/load.py": (
        "from kernels.importer import _import_from_path\n"
        "from kernels.install import install_kernel\n\n\n"
        "def get_kernel(repo_id, revision=None, version=None):\n"
        "    variant_path = install_kernel(repo_id, revision=revision)\n"
        "    return _import_from_path(variant_path)\n"
    ),
    "src/kernels/install.py": (
        "from pathlib import Path\n\n\n"
        "def install_kernel(repo_id, revision=None):\n"
        "    return Path(repo_id)\n"
    ),
    "src/kernels/layer/__init__.py": "",
    "src/kernels/layer/globals.py": (
        "import os\n"
        "from contextvars import ContextVar\n\n"
        '_DISABLE_KERNEL_MAPPING: bool = bool(int(os.environ.get("DISABLE_KERNEL_MAPPING",'
        ' "0")))\n\n'
        '_KERNEL_MAPPING: ContextVar[dict] = ContextVar("_KERNEL_MAPPING", default={})\n'
    ),
    "src/kernels/layer/repos.py": (
        "from typing import Protocol, Type\n\n\n"
        "class RepositoryProtocol(Protocol):\n"
        '    def load(self) -> Type["nn.Module"]: ...\n'
    ),
    "src/kernels/layer/layer.py": (
        "from __future__ import annotations\n\n"
        "from types import MethodType\n"
        "from typing import Protocol\n\n"
        "from ..load import get_kernel\n"
        "from .globals import _DISABLE_KERNEL_MAPPING, _KERNEL_MAPPING\n"
        "from .repos import RepositoryProtocol\n\n\n"
        "class LayerRepositoryProtocol(RepositoryProtocol, Protocol):\n"
        "    @property\n"
        "    def layer_name(self) -> str: ...\n\n\n"
        "class LayerRepository:\n"
        "    def __init__(self, repo_id, *, layer_name):\n"
        "        self._repo_id = repo_id\n"
        "        self.layer_name = layer_name\n\n"
        "    def load(self):\n"
        "        kernel = get_kernel(self._repo_id)\n"
        "        return getattr(kernel.layers, self.layer_name)\n\n\n"
        "_CACHED_LAYER = {}\n\n\n"
        "def kernelize_layer(module, *, mode, use_fallback):\n"
        "    module_class = type(module)\n"
        "    layer_name = module_class.kernel_layer_name\n\n"
        "    if _DISABLE_KERNEL_MAPPING:\n"
        "        _replace_forward(module, module_class)\n"
        "        return\n\n"
        "    repo = _KERNEL_MAPPING.get().get(str(layer_name))\n"
        "    if repo is None:\n"
        "        _replace_forward(module, module_class)\n"
        "        return\n"
        "    layer = _get_layer_memoize(repo, module_class)\n"
        "    _replace_forward(module, layer)\n\n\n"
        "def _replace_forward(module, layer):\n"
        "    module.forward = MethodType(layer.forward, module)\n\n\n"
        "def _get_layer_memoize(repo: RepositoryProtocol, module_class):\n"
        "    layer = _CACHED_LAYER.get(repo, None)\n"
        "    if layer is not None:\n"
        "        return layer\n"
        "    layer = repo.load()\n"
        "    _CACHED_LAYER[repo] = layer\n"
        "    return layer\n"
    ),
}

KERNEL_REASON = (
    "unset, it runs the branch of `not _DISABLE_KERNEL_MAPPING` at "
    "src/kernels/layer/layer.py:33, which reaches calls _get_layer_memoize "
    "(src/kernels/layer/layer.py:49) -> calls LayerRepository.load "
    "(src/kernels/layer/layer.py:21) -> calls get_kernel (src/kernels/load.py:5) -> calls "
    "_import_from_path (src/kernels/importer.py:5) -> Hugging Face kernels (compiled kernels "
    "loaded from the Hub): the module _import_from_path loads by path at run time and "
    "returns at src/kernels/importer.py:10; DISABLE_KERNEL_MAPPING='1' leaves that branch, "
    "and what runs instead reaches no such kernel"
)


def _changed(rel: str, old: str, new: str) -> dict[str, str]:
    files = dict(HUB_KERNELS)
    assert old in files[rel]
    files[rel] = files[rel].replace(old, new)
    return files


def test_a_kernel_library_that_loads_its_kernels_by_path(tmp_path: Path) -> None:
    write_tree(tmp_path, HUB_KERNELS)
    knob = scan([tmp_path], root=tmp_path, jobs=1).knob("DISABLE_KERNEL_MAPPING")
    assert knob is not None
    assert (knob.role, knob.polarity, knob.default_on, knob.role_reason) == (
        Role.KERNEL,
        Polarity.DISABLE,
        False,
        KERNEL_REASON,
    )


NOT_KERNELS = [
    # The same code in a package no kernel library has: a plugin loaded by path is code
    # no one can read here, not a kernel.
    (
        "a-package-no-library-has",
        {
            rel.replace("src/kernels/", "src/plugins/"): text.replace("kernels.", "plugins.")
            for rel, text in HUB_KERNELS.items()
        },
    ),
    # The library's own loader that keeps what it finds in the module and returns that (a
    # benchmark script's classes, huggingface/kernels 8ac69fc kernels/src/kernels/cli/
    # benchmark.py:568-590): it hands on no module.
    (
        "a-load-that-returns-no-module",
        _changed(
            "src/kernels/importer.py", "    return module\n", "    return list(vars(module))\n"
        ),
    ),
    # A parameter typed with a class that is no protocol: ``repo.load()`` is not followed
    # to the classes that happen to define ``load``.
    (
        "a-parameter-typed-with-no-protocol",
        _changed("src/kernels/layer/repos.py", "(Protocol)", ""),
    ),
]


@pytest.mark.parametrize(("files"), [c[1] for c in NOT_KERNELS], ids=[c[0] for c in NOT_KERNELS])
def test_what_is_not_a_library_kernel_loaded_by_path(tmp_path: Path, files: dict[str, str]) -> None:
    write_tree(tmp_path, files)
    knob = scan([tmp_path], root=tmp_path, jobs=1).knob("DISABLE_KERNEL_MAPPING")
    assert knob is not None
    assert knob.role is not Role.KERNEL
