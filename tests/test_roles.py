"""Roles: what a knob controls, proposed by the scan from its verdict, the catalogue of the
stack's determinism settings, the launcher writes it implies and the words around it (which
alone never give a role a recipe acts on: tests/test_roles_code.py holds the roles the
code's branches give). Each case is a real tree on disk, scanned, with the role and the
evidence it gives."""

from __future__ import annotations

from pathlib import Path

import pytest

from scanner import Knob, Role
from scanner.determinism import SETTINGS, deterministic_writes
from scanner.roles import Evidence, propose_roles
from tests.scanned import scanned_knob

# transformers 5.25.0, generation/configuration_utils.py: NCCL_GRAPH_MIXING_SUPPORT=0 drops
# NCCL's support for graph-captured and eager collectives in flight together (transformers
# sets it for speed); it turns no CUDA graph off, so a recipe has no business with it.
GRAPH_MIXING = """\
import os


class ContinuousBatchingConfig:
    def __post_init__(self):
        graph_mixing_supported = os.environ.get("NCCL_GRAPH_MIXING_SUPPORT", "1") == "1"
        distributed = int(os.environ.get("WORLD_SIZE", "1")) > 1
        if self.disable_nccl_graph_mixing and graph_mixing_supported and distributed:
            os.environ.setdefault("NCCL_GRAPH_MIXING_SUPPORT", "0")
"""

CASES: list[tuple[str, dict[str, str], str, Role, str]] = [
    (
        "a-triton-gate",
        {"m.py": 'import os\nA = os.environ.get("X_HC_TRITON", "1") != "0"\n'},
        "X_HC_TRITON",
        Role.UNKNOWN,
        "the name X_HC_TRITON says TRITON, a hint of a kernel choice, but no code it reaches "
        "shows one: words alone are not evidence",
    ),
    (
        "what-it-feeds",
        {"m.py": 'import os\nuse_cache = os.environ.get("X_MASK", "1") != "0"\n'},
        "X_MASK",
        Role.UNKNOWN,
        "what it feeds, use_cache says CACHE, a hint of a kernel choice, but no code it reaches "
        "shows one: words alone are not evidence",
    ),
    (
        "the-function-that-returns-the-test",
        {"m.py": 'import os\n\ndef is_fused_enabled():\n    return os.getenv("X_A", "1") != "0"\n'},
        "X_A",
        Role.UNKNOWN,
        "what it feeds, is_fused_enabled says FUSED, a hint of a kernel choice, but no code it "
        "reaches shows one: words alone are not evidence",
    ),
    (
        "an-operation-beside-an-implementation",
        {"m.py": 'import os\nA = os.environ.get("X_DISABLE_FUSED_ADAM", "0") == "1"\n'},
        "X_DISABLE_FUSED_ADAM",
        Role.UNKNOWN,
        "the name X_DISABLE_FUSED_ADAM says FUSED, a hint of a kernel choice, but no code it "
        "reaches shows one: words alone are not evidence",
    ),
    (
        "a-switch-that-names-a-deterministic-mode",
        {"m.py": 'import os\nA = os.environ.get("X_DETERMINISTIC", "0") == "1"\n'},
        "X_DETERMINISTIC",
        Role.UNKNOWN,
        "the name X_DETERMINISTIC says DETERMINISTIC, a hint of the framework's deterministic "
        "mode, but no code it reaches shows one: words alone are not evidence",
    ),
    (
        "a-key-the-trainer-documents-as-its-deterministic-mode",  # a switch: a boolean key
        {
            "base.yaml": "deterministic_mode: false\n",
            "e.yaml": "o:\n  deterministic_mode: ${X_DM:0}\n",
        },
        "X_DM",
        Role.DETERMINISM,
        "it sets the config key deterministic_mode (e.yaml:2), which megatron-core 0.16.1 "
        "megatron/core/model_parallel_config.py:147 documents as code that has deterministic "
        "execution is chosen",
    ),
    (
        "a-check-of-determinism-is-no-mode",
        {"m.py": 'import os\nA = os.environ.get("X_CHECK_DETERMINISM", "0") == "1"\n'},
        "X_CHECK_DETERMINISM",
        Role.SAFETY,
        "the name X_CHECK_DETERMINISM says CHECK (a check)",
    ),
    (
        "a-mode-that-only-warns-is-no-mode",
        {"m.py": 'import os\nA = os.getenv("X_DETERMINISTIC_WARN_ONLY", "0") == "1"\n'},
        "X_DETERMINISTIC_WARN_ONLY",
        Role.UNKNOWN,
        "nothing in its name, what it feeds or the functions that read it says what it controls",
    ),
    (
        "a-deterministic-value-is-no-switch",
        {"m.py": 'import os\nA = int(os.environ.get("X_DETERMINISTIC_LEVEL", "0"))\n'},
        "X_DETERMINISTIC_LEVEL",
        Role.VALUE,
        "not a switch: the code uses its value",
    ),
    (
        "what-is-trained",
        {"m.py": 'import os\nA = os.environ.get("X_NEMO_LOSS", "1") != "0"\n'},
        "X_NEMO_LOSS",
        Role.FEATURE,
        "the name X_NEMO_LOSS says LOSS (what is computed or trained)",
    ),
    (
        # Issue 38: a precision word beside a kernel word no longer gives feature (it did for
        # axolotl 067b021's AXOLOTL_SONICMOE_NVFP4_FUSED_UP, sonicmoe/nvfp4_lora.py:342).
        "a-precision-beside-a-kernel-word-says-neither",
        {"m.py": 'import os\nA = os.environ.get("X_FP8_TRITON", "1") != "0"\n'},
        "X_FP8_TRITON",
        Role.UNKNOWN,
        "the name X_FP8_TRITON says FP8 (what is computed or trained) and TRITON (a kernel "
        "choice): words alone do not say which, and no code it reaches shows a kernel",
    ),
    (
        # unsloth 2026.10.9 unsloth/kernels/fast_lora.py:86: what is trained (LORA) beside
        # how it runs (FUSED).
        "what-is-trained-beside-a-kernel-word-says-neither",
        {"m.py": 'import os\nA = os.environ.get("X_FUSED_LORA_DROPOUT", "1") != "0"\n'},
        "X_FUSED_LORA_DROPOUT",
        Role.UNKNOWN,
        "the name X_FUSED_LORA_DROPOUT says LORA (what is computed or trained) and FUSED (a "
        "kernel choice): words alone do not say which, and no code it reaches shows a kernel",
    ),
    (
        "a-check-skipped",
        {"m.py": 'import os\nA = os.environ.get("X_SKIP_VALIDATION", "0") == "1"\n'},
        "X_SKIP_VALIDATION",
        Role.SAFETY,
        "the name says SKIP VALIDATION: it skips a check",
    ),
    (
        "a-launch-step-skipped",
        {"run.sh": '[[ "${SKIP_TRAIN:-0}" == "1" ]] && exit 0\ntrain\n'},
        "SKIP_TRAIN",
        Role.LAUNCH,
        "the name says SKIP TRAIN: it skips a launch step",
    ),
    (
        "a-skip-is-never-a-kernel-choice",
        {"m.py": 'import os\nA = os.getenv("X_BWD_SKIP_DPOOL_ATOMIC", "0") != "1"\n'},
        "X_BWD_SKIP_DPOOL_ATOMIC",
        Role.UNKNOWN,
        "the name says SKIP: it skips part of the run, and its name does not say which",
    ),
    (
        "debugging",
        {"m.py": 'import os\nA = os.environ.get("X_VERBOSE_TRITON", "0") == "1"\n'},
        "X_VERBOSE_TRITON",
        Role.DEBUG,
        "the name X_VERBOSE_TRITON says VERBOSE (logging, profiling, tests or debugging)",
    ),
    (
        "a-value",
        {"m.py": 'import os\nN = int(os.environ.get("X_BLOCK", "64"))\n'},
        "X_BLOCK",
        Role.VALUE,
        "not a switch: the code uses its value",
    ),
    (
        "a-system-fact",
        {"m.py": 'import os\nP = os.environ.get("PATH", "")\n'},
        "PATH",
        Role.FACT,
        "set by the launcher or the system, not a switch",
    ),
    (
        "the-runtime-around-a-kernel",
        {"m.py": 'import os\nF = os.getenv("CUDA_GRAPH_CAPTURE_FREEZE_GC") != "0"\n'},
        "CUDA_GRAPH_CAPTURE_FREEZE_GC",
        Role.UNKNOWN,
        "the name CUDA_GRAPH_CAPTURE_FREEZE_GC says GRAPH (a kernel choice) but also GC (the "
        "runtime around a kernel): it does not say which",
    ),
    (
        "support-for-a-use-is-no-kernel-choice",
        {"generation/config.py": GRAPH_MIXING},
        "NCCL_GRAPH_MIXING_SUPPORT",
        Role.UNKNOWN,
        "the name NCCL_GRAPH_MIXING_SUPPORT says GRAPH (a kernel choice) but also SUPPORT (the "
        "runtime around a kernel): it does not say which",
    ),
    (
        "a-library-cache-is-no-kernel-choice",
        {"run.sh": "export MIOPEN_DISABLE_CACHE=${MIOPEN_DISABLE_CACHE:-1}\n"},
        "MIOPEN_DISABLE_CACHE",
        Role.UNKNOWN,
        "nothing in its name, what it feeds or the functions that read it says what it controls",
    ),
    (
        # AngelSlim 67394ce tools/vllm_patch/envs.py:509 (vLLM's envs.py): a switch (its test
        # reads "0" and "1" apart) named for a size (BATCH) was a value; the verdict says a
        # switch, and nothing else in its name says what it controls.
        "a-switch-named-for-a-size-is-no-value",
        {
            "envs.py": "import os\n\nenvironment_variables = {\n"
            '    "VLLM_BATCH_INVARIANT": lambda: bool(int(os.getenv("VLLM_BATCH_INVARIANT", "0"))),'
            "\n}\n"
        },
        "VLLM_BATCH_INVARIANT",
        Role.UNKNOWN,
        "nothing in its name, what it feeds or the functions that read it says what it controls",
    ),
    (
        # torch's inductor/config.py: a switch whose test reads "1" named for a size and a
        # check says what its other word says
        "a-switch-named-for-a-size-and-a-check-is-a-check",
        {"m.py": 'import os\nA = os.environ.get("X_SIZE_ASSERTS", "1") == "1"\n'},
        "X_SIZE_ASSERTS",
        Role.SAFETY,
        "the name X_SIZE_ASSERTS says ASSERTS (a check)",
    ),
    (
        # a setting tested for what it holds is no switch of words: its name says a value
        "a-setting-tested-for-what-it-holds-stays-a-value",
        {
            "m.py": "import os\n"
            'A = "expandable_segments:True" not in os.getenv("X_ALLOC_CONF", "")\n'
        },
        "X_ALLOC_CONF",
        Role.VALUE,
        "the name X_ALLOC_CONF says CONF (a size, a count, a path or a name)",
    ),
    (
        "a-code-path",
        {"m.py": 'import os\nA = os.environ.get("X_FAST_PATH", "1") != "0"\n'},
        "X_FAST_PATH",
        Role.UNKNOWN,
        "nothing in its name, what it feeds or the functions that read it says what it controls",
    ),
    (
        "read-only-by-tests",
        {"tests/test_a.py": 'import os\nA = os.environ.get("X_TRITON_T", "1") != "0"\n'},
        "X_TRITON_T",
        Role.DEBUG,
        "read only by tests and benchmarks",
    ),
    (
        "a-catalogue-setting",
        {"m.py": 'import os\nC = os.environ.get("CUBLAS_WORKSPACE_CONFIG", "")\n'},
        "CUBLAS_WORKSPACE_CONFIG",
        Role.STACK,
        "a determinism setting of cuBLAS in the catalogue: ':4096:8' gives a fixed workspace "
        "per stream, which torch.use_deterministic_algorithms requires on CUDA 10.2 and later",
    ),
    (
        "the-framework-s-deterministic-mode",
        {
            "hook.sh": 'if [[ "${FW_DETERMINISTIC:-0}" != "1" ]]; then\n    exit 0\nfi\n'
            "export NCCL_ALGO=Ring\nexport TORCH_COMPILE_DISABLE=1\n"
        },
        "FW_DETERMINISTIC",
        Role.DETERMINISM,
        "with FW_DETERMINISTIC=1, hook.sh:4 sets NCCL_ALGO=Ring, TORCH_COMPILE_DISABLE=1: the "
        "framework's deterministic mode",
    ),
    (
        "one-setting-is-no-mode",
        {"hook.sh": 'if [[ "${FW_RING:-0}" == "1" ]]; then\n    export NCCL_ALGO=Ring\nfi\n'},
        "FW_RING",
        Role.UNKNOWN,
        "nothing in its name, what it feeds or the functions that read it says what it controls",
    ),
]


@pytest.mark.parametrize(
    ("files", "name", "role", "reason"), [c[1:] for c in CASES], ids=[c[0] for c in CASES]
)
def test_role(tmp_path: Path, files: dict[str, str], name: str, role: Role, reason: str) -> None:
    knob = scanned_knob(tmp_path, files, name)
    assert (knob.role, knob.role_reason) == (role, reason)


def test_the_catalogue_is_data_in_one_place() -> None:
    assert {name: s.value for name, s in SETTINGS.items()} == {
        "CUBLAS_WORKSPACE_CONFIG": ":4096:8",
        "NCCL_ALGO": "Ring",
        "NVTE_ALLOW_NONDETERMINISTIC_ALGO": "0",
        "ROCBLAS_DEFAULT_ATOMICS_MODE": "0",
        "TORCH_COMPILE_DISABLE": "1",
        "PRIMUS_TURBO_AUTO_TUNE": "0",
    }
    found = deterministic_writes(
        [("NCCL_ALGO", "Tree"), ("TORCH_COMPILE_DISABLE", "1"), ("OTHER", "1")]
    )
    assert [s.name for s in found] == ["TORCH_COMPILE_DISABLE"]  # Tree is no determinism


def test_a_support_switch_is_read_where_the_code_reads_it(tmp_path: Path) -> None:
    """The NCCL_GRAPH_MIXING_SUPPORT read keeps its verdict (on unless "1" is changed) and
    its place: only its role changed, from kernel to unknown."""
    knob = scanned_knob(
        tmp_path, {"generation/config.py": GRAPH_MIXING}, "NCCL_GRAPH_MIXING_SUPPORT"
    )
    assert [(s.path, s.line, s.column) for s in knob.sites] == [("generation/config.py", 6, 34)]
    assert (knob.default_on, knob.role) == (True, Role.UNKNOWN)


class _Failing:
    """Code evidence whose reading raises, as a fault of the reach would."""

    def evidence(self, knob: Knob) -> Evidence | None:
        raise AssertionError("an internal fault")


def test_a_fault_reading_one_knob_leaves_it_unknown(tmp_path: Path) -> None:
    """One knob's reading that fails never stops the scan of the tree (a fault of the reach
    stopped `knobs init` on Primus): the knob is unknown, with the error, for a report."""
    knob = scanned_knob(
        tmp_path,
        {"m.py": 'import os\nA = os.environ.get("X_HC_TRITON", "1") != "0"\n'},
        "X_HC_TRITON",
    )
    (proposed,) = propose_roles([knob], (), _Failing())
    assert (proposed.role, proposed.role_reason) == (
        Role.UNKNOWN,
        "reading the code its value decides failed (AssertionError: an internal fault): please "
        "report it, with the file of its first site",
    )
