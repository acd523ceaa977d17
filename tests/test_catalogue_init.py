"""`knobs init` proposes the catalogue's stack settings for the libraries a project uses,
the bitwise export then holds them, and `--format python` writes the calls as a module."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest
import yaml

from knobregistry.catalogue import Platform
from knobregistry.project.stack_use import imported_modules, project_packages, torch_platform
from tests.conftest import REPO, run_knobs, write_tree
from tests.processes import run_python

GOLDEN = REPO / "tests" / "data" / "catalogue"
# A kernel choice the code shows: the on side adds the rows with index_add_ (atomic adds
# on a GPU, in an order that changes run to run), the off side one by one, in order. It
# imports no library, so the catalogue finds none in it.
KERNEL = """\
import os
FUSED = os.environ.get("DEMO_FUSED", "1") != "0"


def embed_backward(grad, index, rows):
    if FUSED:
        return grad.index_add_(0, index, rows)
    for i, row in zip(index.tolist(), rows):
        grad[i] += row
    return grad
"""


@pytest.fixture
def project(tmp_path: Path) -> Path:
    return write_tree(tmp_path / "p", {"requirements.txt": "torch>=2.3\n", "src/m.py": KERNEL})


def _init(project: Path, *args: str) -> subprocess.CompletedProcess[str]:
    result = run_knobs("init", "src", *args, cwd=project)
    assert result.returncode == 0, result.stderr
    return result


def _export(project: Path, *args: str) -> str:
    result = run_knobs("export", "--profile", "bitwise", *args, cwd=project)
    assert result.returncode == 0, result.stderr
    return result.stdout


def _exports(text: str) -> list[str]:
    return [line for line in text.splitlines() if line.startswith("export ")]


def _unsets(text: str) -> list[str]:
    return [line for line in text.splitlines() if line.startswith("unset ")]


def test_init_with_cuda_proposes_torch_cublas_cudnn_nccl(project: Path) -> None:
    result = _init(project, "--platform", "cuda")
    assert result.stdout == (GOLDEN / "init_cuda.txt").read_text(encoding="utf-8")
    registry = yaml.safe_load((project / "registry.yaml").read_text(encoding="utf-8"))
    assert registry["external"]["NCCL_ALGO"] == {
        "library": "NCCL",
        "description": "collective algorithm",
        "role": "stack",
        "deterministic": "Ring",
        "cost": "Forgoes the faster topology-aware algorithms (Tree, NVLS, CollNet) for every "
        "collective.",
        "source": "https://docs.nvidia.com/megatron-core/developer-guide/nightly/user-guide/"
        "deterministic-training.html",
    }
    assert registry["config"]["torch.use_deterministic_algorithms"]["backend"] == "stack"
    assert registry["profiles"]["bitwise"]["config"] == {
        "torch.backends.cudnn.benchmark": False,
        "torch.backends.cudnn.deterministic": True,
        "torch.use_deterministic_algorithms": True,
    }
    assert registry["external"]["NCCL_TUNER_PLUGIN"]["must_stay_unset"] is True
    assert "deterministic" not in registry["external"]["NCCL_TUNER_PLUGIN"]
    assert registry["external"]["NCCL_WIN_ENABLE"]["default"] == "1"
    assert run_knobs("check", cwd=project).returncode == 0
    exported = _export(project)
    assert _exports(exported) == [
        "export CUBLAS_WORKSPACE_CONFIG=':4096:8'",
        "export DEMO_FUSED='0'",
        "export NCCL_ALGO='Ring'",
        "export NCCL_NVLS_ENABLE='0'",
        "export NCCL_WIN_ENABLE='0'",
        "export PYTHONHASHSEED='0'",
        "export TORCH_COMPILE_DISABLE='1'",
    ]
    assert _unsets(exported) == [
        "unset NCCL_TUNER_PLUGIN",
        "unset NVIDIA_TF32_OVERRIDE",
        "unset TORCH_ALLOW_TF32_CUBLAS_OVERRIDE",
    ]


def test_init_with_rocm_proposes_rocblas_hipblaslt_miopen_rccl(project: Path) -> None:
    result = _init(project, "--platform", "rocm")
    assert "Platform: rocm (given with --platform).\n" in result.stdout
    exported = _export(project)
    assert _exports(exported) == [
        "export DEMO_FUSED='0'",
        "export MIOPEN_DEBUG_CONVOLUTION_DETERMINISTIC='1'",
        "export NCCL_ALGO='Ring'",
        "export PYTHONHASHSEED='0'",
        "export PYTORCH_TUNABLEOP_ENABLED='0'",
        "export RCCL_MSCCLPP_ENABLE='0'",
        "export RCCL_MSCCL_ENABLE='0'",
        "export ROCBLAS_DEFAULT_ATOMICS_MODE='0'",
        "export TORCH_COMPILE_DISABLE='1'",
    ]
    assert _unsets(exported) == ["unset NCCL_TUNER_PLUGIN"]
    registry = yaml.safe_load((project / "registry.yaml").read_text(encoding="utf-8"))
    assert registry["external"]["NCCL_ALGO"]["library"] == "RCCL"
    assert "torch.backends.cudnn.benchmark" not in registry["profiles"]["bitwise"]["config"]


def test_without_a_platform_the_platform_settings_are_left_out_and_said(project: Path) -> None:
    result = _init(project)
    assert result.stdout.splitlines()[2:5] == [
        "Stack settings from the catalogue: 3 settings of Python, torch, role `stack`, set by "
        "the bitwise profile.",
        "Libraries found: torch (named in requirements.txt).",
        "Platform: undecided (no --platform, and no --environment to read it from the installed "
        "torch); the settings of one platform (NCCL, cuBLAS, cuDNN, RCCL, rocBLAS, hipBLASLt, "
        "MIOpen, ...) were left out: pass --platform cuda|rocm|cpu.",
    ]
    assert _exports(_export(project)) == [
        "export DEMO_FUSED='0'",
        "export PYTHONHASHSEED='0'",
        "export TORCH_COMPILE_DISABLE='1'",
    ]


def test_a_project_using_no_catalogued_library_gets_no_stack_settings(tmp_path: Path) -> None:
    project = write_tree(tmp_path / "p", {"src/m.py": KERNEL})
    result = _init(project, "--platform", "cuda")
    assert "Stack settings" not in result.stdout
    assert "Platform" not in result.stdout
    assert "external:" not in (project / "registry.yaml").read_text(encoding="utf-8")


def test_an_import_is_enough(tmp_path: Path) -> None:
    project = write_tree(
        tmp_path / "p", {"src/m.py": KERNEL, "src/te.py": "import transformer_engine.pytorch\n"}
    )
    result = _init(project)
    assert "Libraries found: transformer-engine (imported in src/te.py).\n" in result.stdout
    assert "export NVTE_ALLOW_NONDETERMINISTIC_ALGO='0'" in _exports(_export(project))


def test_export_python_is_a_module_that_makes_the_calls(project: Path) -> None:
    _init(project, "--platform", "cuda")
    text = _export(project, "--format", "python")
    assert text == (GOLDEN / "bitwise_cuda.py.txt").read_text(encoding="utf-8")
    (project / "knobs_bitwise.py").write_text(text, encoding="utf-8")
    probe = (
        "import knobs_bitwise, torch\n"
        "print(torch.are_deterministic_algorithms_enabled(), torch.backends.cudnn.benchmark,"
        " torch.backends.cudnn.deterministic)\n"
    )
    ran = run_python("-c", probe, cwd=project)
    assert (ran.returncode, ran.stdout) == (0, "True False True\n"), ran.stderr


def test_export_python_without_calls_says_so(tmp_path: Path) -> None:
    project = write_tree(tmp_path / "p", {"src/m.py": KERNEL})
    _init(project)
    text = _export(project, "--format", "python")
    assert text.endswith("# The profile makes no call or attribute setting of the stack.\n")
    assert "import " not in text


@pytest.mark.parametrize(
    ("version", "platform"),
    [
        ("2.5.1+cu121", Platform.CUDA),
        ("2.5.1+rocm6.2", Platform.ROCM),
        ("2.13.0+cpu", Platform.CPU),
        ("2.5.1", None),
    ],
)
def test_torch_platform_from_its_local_label(version: str, platform: Platform | None) -> None:
    found, reason = torch_platform({"torch": version})
    assert found is platform
    expected = (
        f"the installed torch is {version}"
        if platform is not None
        else f"the installed torch {version} does not name its platform"
    )
    assert reason == expected


def test_no_torch_installed_decides_nothing() -> None:
    assert torch_platform({}) == (None, "torch is not installed here to tell")


def test_project_packages_read_requirements_and_pyproject(tmp_path: Path) -> None:
    write_tree(
        tmp_path,
        {
            "requirements.txt": "# c\n-r other.txt\nTorch==2.3 ; python_version>'3'\n"
            "pkg @ https://x/y.whl\n",
            "requirements-jax.txt": "jax[cuda]\n",
            "pyproject.toml": '[project]\ndependencies = ["Transformer_Engine>=1"]\n'
            '[project.optional-dependencies]\ngpu = ["triton"]\n',
        },
    )
    assert project_packages(tmp_path) == {
        "jax": "requirements-jax.txt",
        "pkg": "requirements.txt",
        "torch": "requirements.txt",
        "transformer-engine": "pyproject.toml",
        "triton": "pyproject.toml",
    }


def test_imported_modules_only_counts_import_statements(tmp_path: Path) -> None:
    write_tree(
        tmp_path,
        {
            "a.py": "x = 'import torch'\n# import jax\n",
            "b.py": "if True:\n    from torch import nn\n",
            "c.py": "import triton.language as tl\n",
            ".venv/lib/site-packages/x/jax_user.py": "import jax\n",
            "env/lib/python3.11/site-packages/y.py": "import jax\n",
        },
    )
    found = imported_modules([tmp_path], ["torch", "jax", "triton"])
    assert found == {
        "torch": (tmp_path / "b.py").as_posix(),
        "triton": (tmp_path / "c.py").as_posix(),
    }


def test_a_catalogued_variable_the_code_reads_stays_a_knob_of_role_stack(tmp_path: Path) -> None:
    launcher = 'import os\nN = int(os.environ.get("TE_HIPBLASLT_TUNING_RUN_COUNT", "10"))\n'
    project = write_tree(
        tmp_path / "p",
        {
            "requirements.txt": "torch\ntransformer-engine\n",
            "src/m.py": KERNEL,
            "src/t.py": launcher,
        },
    )
    _init(project, "--platform", "rocm")
    registry = yaml.safe_load((project / "registry.yaml").read_text(encoding="utf-8"))
    assert "TE_HIPBLASLT_TUNING_RUN_COUNT" not in registry["external"]
    role = registry["knobs"]["TE_HIPBLASLT_TUNING_RUN_COUNT"]["role"]
    assert role["proposed"] == "stack"
    assert role["reason"].startswith(
        "a determinism setting of Transformer Engine in the catalogue: '0'"
    )
    assert "export TE_HIPBLASLT_TUNING_RUN_COUNT='0'" in _exports(_export(project))


def test_the_env_file_names_the_calls_it_leaves_to_the_module(project: Path) -> None:
    _init(project, "--platform", "cuda")
    header = [line for line in _export(project).splitlines() if line.startswith("#")]
    assert header[-5:-2] == [
        "# Stack calls: torch.backends.cudnn.benchmark, torch.backends.cudnn.deterministic,",
        "#   torch.use_deterministic_algorithms, not in this file; write them as a module to "
        "import with",
        "#   `knobs export --profile bitwise --registry registry.yaml --format python`.",
    ]


XLA_DETERMINISTIC = (
    "--xla_gpu_deterministic_ops=true --xla_gpu_autotune_level=0 "
    "--xla_gpu_enable_triton_gemm=false --xla_gpu_enable_command_buffer="
)


def test_a_flags_variable_keeps_the_flags_it_holds_and_adds_the_deterministic_ones(
    tmp_path: Path,
) -> None:
    """XLA_FLAGS holds a launcher's other flags (maxtext e591f30 src/maxtext/configs/types.py:3308
    reads it, configs/gpu/a3/llama_2_7b/1vm.sh:21 exports latency-hiding flags in it): the recipe
    keeps what it holds when sourced and adds XLA's deterministic flags after them, where XLA
    takes a repeated flag's last value."""
    launcher = 'import os\nFLAGS = os.environ.get("XLA_FLAGS", "")\n'
    project = write_tree(
        tmp_path / "p",
        {"requirements.txt": "jax\n", "src/m.py": KERNEL, "src/launch.py": launcher},
    )
    result = _init(project, "--platform", "cuda")
    assert "Not in the recipe: XLA_FLAGS" not in result.stdout
    registry = yaml.safe_load((project / "registry.yaml").read_text(encoding="utf-8"))
    role = registry["knobs"]["XLA_FLAGS"]["role"]
    assert role["proposed"] == "stack"
    assert (
        "--xla_gpu_autotune_level=0: GEMM, convolution and fusion configurations" in role["reason"]
    )
    text = _export(project)
    line = f"export XLA_FLAGS=\"${{XLA_FLAGS:+$XLA_FLAGS }}\"'{XLA_DETERMINISTIC}'"
    assert _exports(text) == ["export DEMO_FUSED='0'", "export PYTHONHASHSEED='0'", line]
    env = project / "env.sh"
    env.write_text(text, encoding="utf-8")
    show = f'. {env}; printf "%s\\n" "$XLA_FLAGS"'
    kept = ["--xla_dump_to=/tmp/d --xla_gpu_autotune_level=4", "$(touch pwned) --a='b c'"]
    for before, after in [
        (None, XLA_DETERMINISTIC),
        *((flags, f"{flags} {XLA_DETERMINISTIC}") for flags in kept),
    ]:
        environment = {"PATH": "/usr/bin:/bin"} | ({} if before is None else {"XLA_FLAGS": before})
        shown = subprocess.run(
            ["sh", "-c", show], env=environment, cwd=tmp_path, capture_output=True, text=True
        )
        assert shown.stdout == f"{after}\n", shown.stderr
    assert not (tmp_path / "pwned").exists()


def test_an_xla_flags_the_code_never_reads_is_an_external_setting(tmp_path: Path) -> None:
    """A JAX project whose code never reads XLA_FLAGS still gets it: XLA reads it."""
    project = write_tree(tmp_path / "p", {"requirements.txt": "jax\n", "src/m.py": KERNEL})
    _init(project)
    registry = yaml.safe_load((project / "registry.yaml").read_text(encoding="utf-8"))
    assert registry["external"]["XLA_FLAGS"]["deterministic"] == XLA_DETERMINISTIC
    assert f"'{XLA_DETERMINISTIC}'" in _exports(_export(project))[-1]


def test_a_launcher_only_rocm_te_triton_switch_gets_the_catalogue_value(tmp_path: Path) -> None:
    """Primus fd1eeab runner/helpers/envs/base_env.sh:234 turns ROCm Transformer Engine's Triton
    cast-transpose on with `${NVTE_USE_CAST_TRANSPOSE_TRITON:-1}`; only the library reads it,
    so the scan alone cannot tell its role. The catalogue can, whatever the platform: the
    launcher sets it, so the recipe holds its deterministic value."""
    launcher = (
        "#!/bin/bash\nexport NVTE_USE_CAST_TRANSPOSE_TRITON=${NVTE_USE_CAST_TRANSPOSE_TRITON:-1}\n"
    )
    project = write_tree(
        tmp_path / "p",
        {"requirements.txt": "torch\n", "src/m.py": KERNEL, "runner/base_env.sh": launcher},
    )
    result = run_knobs("init", "src", "runner", cwd=project)
    assert result.returncode == 0, result.stderr
    registry = yaml.safe_load((project / "registry.yaml").read_text(encoding="utf-8"))
    role = registry["knobs"]["NVTE_USE_CAST_TRANSPOSE_TRITON"]["role"]
    assert role["proposed"] == "stack"
    assert role["reason"].startswith(
        "a determinism setting of Transformer Engine in the catalogue: '0' gives "
    )
    assert "export NVTE_USE_CAST_TRANSPOSE_TRITON='0'" in _exports(_export(project))


def test_a_launcher_that_turns_vllms_deep_gemm_on_gets_it_off(tmp_path: Path) -> None:
    """verl b178a3c (verl-recipe 21892b9) recipe/dapo/run_dapo_qwen3_moe_30b_vllm_fp8_rollout.sh:77
    exports VLLM_USE_DEEP_GEMM=1 for an FP8 rollout; only vLLM reads it. The catalogue's vLLM
    setting is a cuda one, and the launcher sets it: the recipe holds 0 whatever the platform."""
    launcher = "#!/bin/bash\nexport VLLM_USE_DEEP_GEMM=1\nray job submit -- python3 main.py\n"
    project = write_tree(
        tmp_path / "p",
        {"requirements.txt": "vllm\n", "src/m.py": KERNEL, "recipe/run.sh": launcher},
    )
    result = run_knobs("init", "src", "recipe", cwd=project)
    assert result.returncode == 0, result.stderr
    assert "Stack settings the project's launchers set: VLLM_USE_DEEP_GEMM;" in result.stdout
    assert "export VLLM_USE_DEEP_GEMM='0'" in _exports(_export(project))
    again = run_knobs("init", "src", "recipe", "--platform", "rocm", "--force", cwd=project)
    assert again.returncode == 0, again.stderr
    assert "export VLLM_USE_DEEP_GEMM='0'" in _exports(_export(project))


# vllm 0.33.0 vllm/envs.py:1600 reads VLLM_USE_DEEP_GEMM as its own switch, on when unset;
# vllm/utils/deep_gemm.py:113-118 (is_deep_gemm_supported) requires it.
DEEP_GEMM_ENVS = """\
import os
environment_variables = {
    "VLLM_USE_DEEP_GEMM": lambda: bool(int(os.getenv("VLLM_USE_DEEP_GEMM", "1"))),
}
"""


def test_a_platform_setting_the_code_reads_as_a_switch_on_when_unset_is_proposed(
    tmp_path: Path,
) -> None:
    """The catalogue's VLLM_USE_DEEP_GEMM is a cuda setting. A project whose own code reads it
    as a switch on when unset, where '0' (the catalogue's value) turns it off, holds the
    library's gate: with no platform decided the recipe turns it off. With a platform
    decided, the platform decides, as for every setting of one platform."""
    project = write_tree(
        tmp_path / "p",
        {"requirements.txt": "vllm\n", "src/m.py": KERNEL, "src/envs.py": DEEP_GEMM_ENVS},
    )
    result = _init(project)
    assert (
        "Stack settings of one platform that the project's code reads as a switch on when "
        "unset: VLLM_USE_DEEP_GEMM; role `stack`, set by the bitwise profile to the "
        "catalogue's value, which turns that switch off.\n"
    ) in result.stdout
    registry = yaml.safe_load((project / "registry.yaml").read_text(encoding="utf-8"))
    assert "VLLM_USE_DEEP_GEMM" not in (registry.get("external") or {})
    role = registry["knobs"]["VLLM_USE_DEEP_GEMM"]["role"]
    assert role["proposed"] == "stack"
    assert role["reason"].startswith("a determinism setting of vLLM in the catalogue: '0' gives ")
    assert "export VLLM_USE_DEEP_GEMM='0'" in _exports(_export(project))
    _init(project, "--platform", "rocm", "--force")
    assert not [line for line in _exports(_export(project)) if "VLLM_USE_DEEP_GEMM" in line]


@pytest.mark.parametrize(
    ("read", "why"),
    [
        ('os.environ.get("TRITON_INTERPRET", "0") == "1"', "off when unset"),
        ('os.environ.get("VLLM_USE_DEEP_GEMM", "1") != "no"', "another value turns it off"),
    ],
)
def test_a_platform_setting_read_otherwise_is_left_out(tmp_path: Path, read: str, why: str) -> None:
    """The catalogue's TRITON_INTERPRET=1 (a cpu setting) would turn a switch *on* that the
    code has off when unset (fla, flaggems and vLLM read it so): a GPU run interpreted on the
    CPU. Only a switch on when unset, whose off value is the catalogue's, is proposed."""
    code = f"import os\nimport triton\nFLAG = {read}  # {why}\n"
    project = write_tree(
        tmp_path / "p",
        {"requirements.txt": "vllm\ntriton\n", "src/m.py": KERNEL, "src/flag.py": code},
    )
    result = _init(project)
    assert "that the project's code reads as a switch" not in result.stdout
    assert _exports(_export(project)) == [
        "export DEMO_FUSED='0'",
        "export PYTHONHASHSEED='0'",
        "export VLLM_ENABLE_V1_MULTIPROCESSING='0'",
    ]


def test_a_project_that_runs_vllm_offline_gets_its_scheduling_deterministic(tmp_path: Path) -> None:
    """OpenRLHF 3c3be62 openrlhf/trainer/ray/vllm_engine.py:98-100 sets
    VLLM_ENABLE_V1_MULTIPROCESSING=0 itself only under its full-determinism flag; vLLM's
    reproducibility guide asks for it in offline mode. A project that imports vLLM gets it in
    its bitwise recipe from the catalogue, whatever the platform."""
    project = write_tree(
        tmp_path / "p",
        {"src/rollout.py": "from vllm import LLM\n\nllm = LLM(model='m')\n", "src/m.py": KERNEL},
    )
    result = run_knobs("init", "src", cwd=project)
    assert result.returncode == 0, result.stderr
    registry = yaml.safe_load((project / "registry.yaml").read_text(encoding="utf-8"))
    setting = registry["external"]["VLLM_ENABLE_V1_MULTIPROCESSING"]
    assert (setting["library"], setting["role"], setting["deterministic"]) == ("vLLM", "stack", "0")
    assert "export VLLM_ENABLE_V1_MULTIPROCESSING='0'" in _exports(_export(project))


# AngelSlim 67394ce: tools/vllm_patch/envs.py:509 is a copy of vLLM's envs.py that
# tools/vllm_patch/install.sh installs over vLLM's, and tools/vllm_patch/fused_moe.py:1102,
# :1274 (also installed) picks one fixed tile without split-K under the mode; the tree
# itself builds an offline vllm.LLM (angelslim/engine.py:756-767).
VENDORED_ENVS = """\
import os

environment_variables = {
    "VLLM_BATCH_INVARIANT": lambda: bool(int(os.getenv("VLLM_BATCH_INVARIANT", "0"))),
}
"""
PATCHED_MOE = """\
import vllm.envs as envs


def get_moe_configs(E, N, dtype):
    if envs.VLLM_BATCH_INVARIANT:
        return None
    return load_tuned(E, N, dtype)
"""


def test_vllm_batch_invariant_mode_is_the_catalogues_where_the_code_reads_it(
    tmp_path: Path,
) -> None:
    """vLLM's batch-invariant mode (vllm 0.33.0 envs.py:638, every worker runs
    init_batch_invariance, v1/worker/gpu_worker.py:1699-1701) is a catalogue setting of vLLM:
    a project that reads it in its copy of vLLM's envs.py gets it on, role stack, whatever
    the platform. One that only runs vLLM does not: the mode raises for a selected attention
    backend without it (vllm 0.33.0 platforms/cuda.py:430-446) and for every Mamba backend
    (v1/attention/selector.py:245-249), which nemo-rl's Nemotron 3 Nano GRPO recipes run
    (examples/configs/recipes/llm/grpo-nanov3-30BA3B-2n8g-fsdp2-lora.yaml:8). Check agrees."""
    project = write_tree(
        tmp_path / "p",
        {
            "src/tools/vllm_patch/envs.py": VENDORED_ENVS,
            "src/tools/vllm_patch/fused_moe.py": PATCHED_MOE,
            "src/engine.py": "from vllm import LLM\n",
        },
    )
    _init(project)
    registry = yaml.safe_load((project / "registry.yaml").read_text(encoding="utf-8"))
    knob = registry["knobs"]["VLLM_BATCH_INVARIANT"]
    assert knob["role"]["proposed"] == "stack"
    assert knob["role"]["reason"].startswith(
        "a determinism setting of vLLM in the catalogue: '1' gives vLLM's batch-invariant "
        "(deterministic) mode"
    )
    assert "export VLLM_BATCH_INVARIANT='1'" in _exports(_export(project))
    elsewhere = write_tree(tmp_path / "q", {"src/rollout.py": "from vllm import LLM\n"})
    _init(elsewhere)
    setting = yaml.safe_load((elsewhere / "registry.yaml").read_text(encoding="utf-8"))
    assert "VLLM_BATCH_INVARIANT" not in setting["external"]
    assert "VLLM_ENABLE_V1_MULTIPROCESSING" in setting["external"]
    assert not [line for line in _exports(_export(elsewhere)) if "VLLM_BATCH_INVARIANT" in line]
    for root in (project, elsewhere):
        checked = run_knobs("check", cwd=root)
        assert checked.returncode == 0, checked.stdout + checked.stderr
