"""A catalogue setting that must stay unset (NCCL_TUNER_PLUGIN, a Primus-Turbo tile override):
`knobs init` registers it so, `knobs export` writes `unset NAME`, `--check-env` fails where it is
set, and `knobs check` notes a launcher that sets it (KNB115), all through the real CLI."""

from __future__ import annotations

import subprocess
from pathlib import Path

import yaml

from tests.conftest import run_knobs, write_tree

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
TURBO = "import primus_turbo.pytorch\n"


def _project(tmp_path: Path, files: dict[str, str]) -> Path:
    root = write_tree(tmp_path / "p", {"requirements.txt": "torch\n", "src/m.py": KERNEL, **files})
    (root / ".git").mkdir()
    done = run_knobs("init", "src", "--platform", "rocm", cwd=root)
    assert done.returncode == 0, done.stderr
    return root


def test_init_registers_the_unset_settings_and_export_unsets_them(tmp_path: Path) -> None:
    root = _project(tmp_path, {"src/attn.py": TURBO})
    registry = yaml.safe_load((root / "registry.yaml").read_text(encoding="utf-8"))
    assert registry["external"]["HK_BWD_DQ_KVB"] == {
        "library": "Primus-Turbo",
        "description": "the KV tile width (64 or 128) of the HipKittens attention backward's dQ "
        "kernel, overriding the shape rule; it changes the order dQ is summed in",
        "role": "stack",
        "must_stay_unset": True,
        "cost": 'None; it is a measurement override ("force a rung of the ladder from one '
        'binary"), and unset the shipped rule chooses.',
        "source": "AMD-AGI/Primus-Turbo@a6a16cd csrc/kernels/attention/hipkittens/"
        "hk_attn_bwd_d64_gfx950.cu:2219-2222, hk_attn_bwd_d128_gfx950.cu:2330-2333",
    }
    done = run_knobs("export", "--profile", "bitwise", cwd=root)
    assert done.returncode == 0, done.stderr
    assert [line for line in done.stdout.splitlines() if line.startswith("unset ")] == [
        "unset HK_BWD_D128_DIVSEL",
        "unset HK_BWD_D128_RUNG",
        "unset HK_BWD_DKDV_SEL",
        "unset HK_BWD_DQ_KVB",
        "unset HK_BWD_DQ_RF",
        "unset HK_BWD_VM",
        "unset NCCL_TUNER_PLUGIN",
    ]
    assert "export PRIMUS_TURBO_AUTO_TUNE='0'\n" in done.stdout
    assert done.stderr.endswith("knobs export: Unset 7 variables.\n")
    (root / "env.sh").write_text(done.stdout, encoding="utf-8")
    probe = 'export HK_BWD_DQ_KVB=64; . ./env.sh; echo "[${HK_BWD_DQ_KVB-unset}]"'
    ran = subprocess.run(["sh", "-c", probe], cwd=root, capture_output=True, text=True)
    assert (ran.returncode, ran.stdout) == (0, "[unset]\n"), ran.stderr


def test_check_env_fails_where_a_setting_that_must_stay_unset_is_set(tmp_path: Path) -> None:
    root = _project(tmp_path, {})
    clean = run_knobs("export", "--profile", "bitwise", "--check-env", cwd=root, env=_env())
    assert (clean.returncode, clean.stdout) == (0, ""), clean.stderr
    dirty = run_knobs(
        "export", "--profile", "bitwise", "--check-env", cwd=root,
        env=_env(NCCL_TUNER_PLUGIN="libnccl-tuner.so"),
    )  # fmt: skip
    assert (dirty.returncode, dirty.stdout) == (
        1,
        "NCCL_TUNER_PLUGIN: expected unset, found 'libnccl-tuner.so'\n",
    )


def _env(**extra: str) -> dict[str, str]:
    """The environment the rocm recipe of _project asks for, and ``extra``."""
    return {
        "DEMO_FUSED": "0",
        "MIOPEN_DEBUG_CONVOLUTION_DETERMINISTIC": "1",
        "NCCL_ALGO": "Ring",
        "PYTHONHASHSEED": "0",
        "PYTORCH_TUNABLEOP_ENABLED": "0",
        "RCCL_MSCCLPP_ENABLE": "0",
        "RCCL_MSCCL_ENABLE": "0",
        "ROCBLAS_DEFAULT_ATOMICS_MODE": "0",
        "TORCH_COMPILE_DISABLE": "1",
        **extra,
    }


def test_check_notes_a_launcher_that_sets_it(tmp_path: Path) -> None:
    launcher = (
        "export NCCL_TUNER_PLUGIN=libnccl-tuner.so\n"
        'if [ "${TUNE:-0}" = 1 ]; then export NCCL_TUNER_PLUGIN="$HOME/t.so"; fi\n'
        "unset NCCL_TUNER_PLUGIN\n"
    )
    root = _project(tmp_path, {"src/run.sh": launcher})
    done = run_knobs("check", cwd=root)
    text = (root / "registry.yaml").read_text(encoding="utf-8").splitlines()
    rule = text.index("      - role: stack")
    where = f"registry.yaml:{rule + 1}:9"
    assert done.returncode == 0  # a note
    assert done.stdout == (
        f"{where}: KNB115 note: profile 'bitwise' (kind bitwise) unsets NCCL_TUNER_PLUGIN "
        "(profiles.bitwise.select[3]), a stack setting that must stay unset, but "
        "src/run.sh:1:8 sets it to 'libnccl-tuner.so' (export): a run started through it has "
        "NCCL_TUNER_PLUGIN set.\n"
        "    remove the write of NCCL_TUNER_PLUGIN (or keep it out of the runs that must "
        "reproduce); `knobs catalogue` says why it must stay unset.\n"
        f"{where}: KNB115 note: profile 'bitwise' (kind bitwise) unsets NCCL_TUNER_PLUGIN "
        "(profiles.bitwise.select[3]), a stack setting that must stay unset, but "
        'src/run.sh:2:38 sets it to "$HOME/t.so" when [ "${TUNE:-0}" = 1 ] (export): a run '
        "started through it has NCCL_TUNER_PLUGIN set.\n"
        "    remove the write of NCCL_TUNER_PLUGIN (or keep it out of the runs that must "
        "reproduce); `knobs catalogue` says why it must stay unset.\n"
        "\n"
        "Found 2 notes: 3 knobs in 2 files checked against registry.yaml (policy all).\n"
    )


def test_a_registry_entry_cannot_have_both_a_value_and_must_stay_unset(tmp_path: Path) -> None:
    root = _project(tmp_path, {})
    path = root / "registry.yaml"
    text = path.read_text(encoding="utf-8")
    old = '  NCCL_TUNER_PLUGIN:\n    library: "RCCL"\n'
    assert text.count(old) == 1
    text = text.replace(old, old + '    deterministic: "x"\n')
    path.write_text(text, encoding="utf-8")
    done = run_knobs("check", cwd=root)
    line = text.splitlines().index("    must_stay_unset: true") + 1
    assert done.returncode == 2
    assert done.stderr == (
        f"registry.yaml:{line}:5: external.NCCL_TUNER_PLUGIN.must_stay_unset: "
        "'NCCL_TUNER_PLUGIN' has both `deterministic` and `must_stay_unset`; keep the one the "
        "catalogue gives (`knobs catalogue` prints it).\n"
    )
