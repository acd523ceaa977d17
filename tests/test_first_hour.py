"""A fresh project, as a new user meets it: `knobs init`, `knobs check`, `knobs export
--profile bitwise`, then the exported file sourced before the project's own code runs."""

from __future__ import annotations

import os
import sys
from pathlib import Path

from tests.conftest import run_knobs, write_tree
from tests.processes import run_command, run_python

GATES = """
    import os


    def attn() -> bool:
        return os.environ.get("MYP_ATTN_TRITON", "1") != "0"


    def norm() -> bool:
        return os.environ.get("MYP_NORM", "on") != "off"


    def fused_adam() -> bool:
        return os.environ.get("MYP_DISABLE_FUSED_ADAM", "0") != "1"


    def data_root() -> str:
        return os.environ["MYP_DATA_ROOT"]


    if os.environ.get("MYP_COMPILE_DISABLE") != "1":
        raise RuntimeError("MYP_COMPILE_DISABLE=1 is required")


    def forward(x):
        if attn():
            from kernels import attention

            x = attention(x)
        if fused_adam():
            from kernels import adam_step

            x = adam_step(x)
        return x
"""

# The Triton kernels the two kernel switches choose, imported only where a branch runs them
# (so importing gates needs no triton).
KERNELS = """
    import triton


    @triton.jit
    def _attention_kernel(x_ptr):
        pass


    @triton.jit
    def _adam_kernel(p_ptr):
        pass


    def attention(x):
        _attention_kernel[(1,)](x)
        return x


    def adam_step(p):
        _adam_kernel[(1,)](p)
        return p
"""

LAUNCH = """
    #!/bin/sh
    echo "data in ${MYP_CACHE:?set MYP_CACHE}"
"""

# Run after the exported file is sourced: every default-on feature, and the required read.
PROBE = "import gates; print(gates.attn(), gates.norm(), gates.fused_adam(), gates.data_root())"


def _fresh(tmp_path: Path) -> Path:
    files = {"src/gates.py": GATES, "src/kernels.py": KERNELS, "launch.sh": LAUNCH}
    root = write_tree(tmp_path / "proj", files)
    (root / ".git").mkdir()
    return root


def test_init_check_export_then_sourcing_turns_every_default_on_kernel_off(tmp_path: Path) -> None:
    root = _fresh(tmp_path)
    init = run_knobs("init", cwd=root)
    assert init.returncode == 0, init.stderr
    check = run_knobs("check", cwd=root)
    assert (check.returncode, check.stdout) == (
        0,
        "No problems: 6 knobs in 4 files checked against registry.yaml (policy all).\n",
    )
    export = run_knobs("export", "--profile", "bitwise", "--unset-others", cwd=root)
    assert export.returncode == 0, export.stderr
    assert export.stdout.splitlines()[-4:] == [
        "export MYP_ATTN_TRITON='0'",
        "export MYP_DISABLE_FUSED_ADAM='1'",
        "export PYTHONHASHSEED='0'",  # the catalogue's, for a project that imports triton
        "unset MYP_NORM",
    ]  # MYP_DATA_ROOT, MYP_CACHE and MYP_COMPILE_DISABLE are required: never unset
    assert export.stderr == (
        "knobs export: Set 3 variables: 2 kernel, 1 stack.\n"
        "knobs export: Unset 1 variable.\n"
        "knobs export: Left as the code has them: 1 knob (1 unknown role); `knobs export "
        "--profile bitwise --registry registry.yaml --explain` lists them.\n"
    )
    (root / "env.sh").write_text(export.stdout, encoding="utf-8")
    # The user's own set-up meets the code's requirement; the recipe leaves it alone.
    stale = {"MYP_ATTN_TRITON": "1", "MYP_NORM": "off", "MYP_DATA_ROOT": "/data"}
    environment = {**os.environ, **stale, "MYP_COMPILE_DISABLE": "1"}
    environment["PYTHONPATH"] = str(root / "src")
    before = run_python("-c", PROBE, cwd=root, env=environment)
    assert (before.returncode, before.stdout) == (0, "True False True /data\n")
    source = f'. ./env.sh && exec "{sys.executable}" -c "$0"'
    after = run_command("sh", "-c", source, PROBE, cwd=root, env=environment)
    # MYP_NORM, whose role nobody knows, is back to the code's default (--unset-others).
    assert (after.returncode, after.stdout, after.stderr) == (0, "False True False /data\n", "")


def test_init_writes_off_values_polarity_roles_and_required(tmp_path: Path) -> None:
    root = _fresh(tmp_path)
    run_knobs("init", cwd=root)
    text = (root / "registry.yaml").read_text(encoding="utf-8")
    assert (
        "  MYP_NORM:\n"
        '    # on by default ("off" turns it off); read at src/gates.py:9\n'
        '    default: "on"\n'
        "    default_on: true\n"
        "    polarity: enable\n"
        '    off_value: "off"\n'
        "    role:\n"
        "      proposed: unknown\n"
        '      reason: "nothing in its name, what it feeds or the functions that read it says '
        'what it controls"\n'
        "    triage: untriaged\n"
    ) in text
    assert (
        "  MYP_DATA_ROOT:\n"
        "    # a value knob with no default; read at src/gates.py:17\n"
        "    default_on: null\n"
        "    role:\n"
        "      proposed: value\n"
        '      reason: "not a switch: the code uses its value"\n'
        "    required: true\n"
        "    triage: untriaged\n"
    ) in text
    # The code's requirements are the run's set-up, not the recipe's: no value is guessed.
    assert text.endswith("      - role: stack\n        set: deterministic\n")


def test_an_unknown_profile_gets_a_did_you_mean(tmp_path: Path) -> None:
    root = _fresh(tmp_path)
    run_knobs("init", cwd=root)
    result = run_knobs("export", "-p", "bitwse", cwd=root)
    assert (result.returncode, result.stdout) == (2, "")
    assert result.stderr == (
        "knobs export: error: no profile is named 'bitwse'; the profiles are: bitwise. "
        "Did you mean 'bitwise'?\n"
    )
    upper = run_knobs("export", "-p", "BITWISE", cwd=root)
    assert upper.stderr.endswith("Did you mean 'bitwise'?\n")


def test_a_registry_without_profiles_is_told_how_to_add_one(tmp_path: Path) -> None:
    root = _fresh(tmp_path)
    (root / "registry.yaml").write_text("version: 1\n", encoding="utf-8")
    result = run_knobs("export", "--profile", "bitwise", cwd=root)
    assert (result.returncode, result.stdout) == (2, "")
    assert result.stderr == (
        "knobs export: error: no profile is named 'bitwise': registry.yaml defines no "
        "profiles. Add one at the end of it, for example:\n"
        "    profiles:\n"
        "      bitwise:\n"
        "        description: Bit-for-bit reproducible runs.\n"
        "        kind: bitwise\n"
        "        select:\n"
        "          - role: kernel\n"
        "            default_on: true\n"
        "            triage_not: [reproducible, exempt]\n"
        '            set: "off"\n'
        "          - triage: breaks-bitwise\n"
        '            set: "off"\n'
        "          - role: determinism\n"
        '            set: "on"\n'
        "          - role: stack\n"
        "            set: deterministic\n"
    )


def test_a_profile_that_turns_a_fusion_on_shows_no_cost_of_turning_it_off(tmp_path: Path) -> None:
    """The example's `fast` profile sets TOY_FUSED_SDPA=1, a fusion off by default; the
    entry's `cost` is what the unfused path costs, not what turning SDPA on costs."""
    examples = Path(__file__).resolve().parent.parent / "examples"
    fast = run_knobs("export", "--profile", "fast", cwd=examples)
    assert fast.returncode == 0, fast.stderr
    assert fast.stdout.splitlines()[:4] == [
        "# Profile: fast (kind: fast)",
        "# Registry: registry.yaml",
        "# Every fusion on, the opt-in SDPA included; not bitwise reproducible.",
        "# What it costs: nothing the registry records.",
    ]
    bitwise = run_knobs("export", "--profile", "bitwise", cwd=examples)
    assert "#   TOY_FUSED_LINEAR_CE=0: Materialises the [batch, seq, vocab]" in bitwise.stdout
