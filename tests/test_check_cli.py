"""`knobs check` through the real command line on small real projects: golden output, exit codes."""

from __future__ import annotations

from pathlib import Path

from tests.conftest import run_knobs
from tests.sample_project import (
    IN_SYNC,
    NEW_GATE_FAILURE,
    append,
    check,
    edit,
    project,
)

# Under policy default-on only the two fusions must be registered.
REGISTRY_DEFAULT_ON = """
    version: 1
    scan:
      paths: [pkg]
      match: ["PRIMUS_*"]
      policy: default-on
    knobs:
      PRIMUS_HC_TRITON:
        default: "1"
        default_on: true
        triage: breaks-bitwise
      PRIMUS_ROPE_TRITON:
        default: "1"
        triage: reproducible
    """


def test_registry_in_sync_passes(tmp_path: Path) -> None:
    assert check(project(tmp_path)) == (0, IN_SYNC, "")


def test_new_default_on_gate_fails_with_one_line(tmp_path: Path) -> None:
    root = project(tmp_path)
    append(root)
    assert check(root) == (
        1,
        NEW_GATE_FAILURE
        + "\nFound 1 error: 5 knobs in 3 files checked against registry.yaml (policy all).\n",
        "",
    )


def test_removed_gate_is_stale(tmp_path: Path) -> None:
    root = project(tmp_path)
    edit(root / "pkg/model.py", 'ROPE = env_flag("PRIMUS_ROPE_TRITON")\n', "")
    assert check(root) == (
        1,
        "registry.yaml:15:3: KNB002 error: PRIMUS_ROPE_TRITON is registered, but no code in the "
        "scan scope reads it.\n"
        "    Remove the entry if the gate is gone; if the code moved, widen scan.paths; "
        "if only a library reads it, move the entry under `external`.\n"
        "\n"
        "Found 1 error: 3 knobs in 3 files checked against registry.yaml (policy all).\n",
        "",
    )


def test_flipped_default_differs(tmp_path: Path) -> None:
    root = project(tmp_path)
    edit(root / "pkg/model.py", '"PRIMUS_HC_TRITON", "1"', '"PRIMUS_HC_TRITON", "0"')
    assert check(root) == (
        1,
        'pkg/model.py:5:6: KNB003 error: PRIMUS_HC_TRITON falls back to "0" here (off by default), '
        'but registry.yaml:11 registers default "1" (on by default).\n'
        "    If the change is intended, set in registry.yaml, under knobs.PRIMUS_HC_TRITON:\n"
        '      default: "0"\n'
        "      default_on: false\n"
        "    and review its triage; otherwise restore the default in the code.\n"
        "\n"
        "Found 1 error: 4 knobs in 3 files checked against registry.yaml (policy all).\n",
        "",
    )


def test_conflicting_second_site(tmp_path: Path) -> None:
    other = 'import os\n\nFAST = os.environ.get("PRIMUS_HC_TRITON", "0") == "1"\n'
    root = project(tmp_path, pkg__other_py=other)
    assert check(root) == (
        1,
        "pkg/other.py:3:8: KNB004 error: PRIMUS_HC_TRITON is read with conflicting defaults: "
        "on by default at pkg/model.py:5 but off by default at pkg/other.py:3.\n"
        "    Make every site read it the same way (one helper function, or one module "
        "constant for the default), then run `knobs check` again. In code you do not own, "
        "accept the sites as they are: record how each reads it in registry.yaml under "
        "knobs.PRIMUS_HC_TRITON, and the check holds the code to it:\n"
        "      sites:\n"
        '        - {path: "pkg/model.py", function: "<module>", default: "1", default_on: true, '
        'off_value: "0"}\n'
        '        - {path: "pkg/other.py", function: "<module>", default: "0", default_on: false, '
        'off_value: "0"}\n'
        "\n"
        "Found 1 error: 4 knobs in 4 files checked against registry.yaml (policy all).\n",
        "",
    )


def test_default_on_policy_ignores_default_off_and_value_knobs(tmp_path: Path) -> None:
    root = project(tmp_path, REGISTRY_DEFAULT_ON)
    assert check(root) == (
        0,
        "No problems: 4 knobs in 3 files checked against registry.yaml (policy default-on).\n",
        "",
    )
    append(root, 'DUMP = "PRIMUS_DUMP" in os.environ\nNEW = env_flag("PRIMUS_NEW_TRITON")\n')
    code, out, _ = check(root)
    assert code == 1
    assert [line for line in out.splitlines() if "KNB" in line] == [
        "pkg/model.py:10:7: KNB001 error: PRIMUS_NEW_TRITON is not registered in registry.yaml: "
        'it is on by default ("0" turns it off) and read here.'
    ]


def test_paths_are_relative_to_the_current_folder(tmp_path: Path) -> None:
    other = 'import os\n\nFAST = os.environ.get("PRIMUS_HC_TRITON", "0") == "1"\n'
    root = project(tmp_path, pkg__other_py=other)
    (root / "docs").mkdir()
    code, out, _ = check(root / "docs", "--registry", "../registry.yaml")
    assert code == 1
    assert out.splitlines()[0] == (
        "../pkg/other.py:3:8: KNB004 error: PRIMUS_HC_TRITON is read with conflicting defaults: "
        "on by default at ../pkg/model.py:5 but off by default at ../pkg/other.py:3."
    )
    assert out.splitlines()[-1].endswith("checked against ../registry.yaml (policy all).")


def test_registry_is_found_in_a_parent_folder(tmp_path: Path) -> None:
    root = project(tmp_path)
    code, out, _ = check(root / "pkg")
    assert (code, out.splitlines()[-1]) == (
        0,
        "No problems: 4 knobs in 3 files checked against ../registry.yaml (policy all).",
    )


def test_paths_override_the_scope_and_skip_stale_entries(tmp_path: Path) -> None:
    root = project(tmp_path)
    assert check(root, "pkg/envs.py") == (
        0,
        "No problems: 0 knobs in 1 file checked against registry.yaml (policy all). "
        "Stale entries (KNB002) are not checked when paths are given.\n",
        "",
    )


def test_dynamic_reads_warn_without_failing(tmp_path: Path) -> None:
    dynamic = 'import os\n\nfor kind in open("kinds"):\n    os.environ.get(f"PRIMUS_{kind}")\n'
    root = project(tmp_path, pkg__loop_py=dynamic)
    assert check(root) == (
        0,
        'pkg/loop.py:4:5: KNB006 warning: The variable read by `os.environ.get(f"PRIMUS_{kind}")` '
        "cannot be resolved (the name is built at run time from values not known "
        "statically), so registry.yaml cannot register it.\n"
        "    Name the variable with a string literal or a module-level constant, so that "
        "the knob can be registered.\n"
        "\n"
        "Found 1 warning: 4 knobs in 4 files checked against registry.yaml (policy all).\n",
        "",
    )
    edit(root / "registry.yaml", "policy: all", "policy: default-on")
    assert check(root)[0:2] == (
        0,
        "No problems: 4 knobs in 4 files checked against registry.yaml (policy default-on).\n",
    )


def test_a_dynamic_read_written_over_lines_is_one_finding_line(tmp_path: Path) -> None:
    # Liger-Kernel 0.8.5's calls of its dispatch helper are written over six lines.
    dynamic = (
        "import os\n\n\ndef get(name, *args):\n    return os.environ.get(name)\n\n\n"
        "for kind in open('kinds'):\n    get(\n        kind,\n        1,\n    )\n"
    )
    root = project(tmp_path, pkg__loop_py=dynamic)
    assert check(root) == (
        0,
        "pkg/loop.py:9:5: KNB006 warning: The variable read by `get( kind, 1, )` cannot be "
        "resolved "
        "(the name passed to get() is not known here), so registry.yaml cannot register it.\n"
        "    Name the variable with a string literal or a module-level constant, so that "
        "the knob can be registered.\n"
        "\n"
        "Found 1 warning: 4 knobs in 4 files checked against registry.yaml (policy all).\n",
        "",
    )


def test_a_declaration_the_scan_cannot_name_is_one_finding_line_each(tmp_path: Path) -> None:
    # sglang 0.5.23's dumper (debug_utils/dumper.py:64): a dataclass filled by a loop over
    # fields(), here with a prefix computed at run time.
    dynamic = (
        "import os\nfrom dataclasses import dataclass, fields\n\nPREFIX = open('p').read()\n"
        "\n\n@dataclass\nclass Knobs:\n    fused: bool = True\n    size: int = 4\n\n"
        "    @classmethod\n    def from_env(cls):\n"
        "        return cls(**{f.name: os.getenv(PREFIX + f.name.upper()) for f in fields(cls)})\n"
    )
    root = project(tmp_path, pkg__knobs_py=dynamic)
    fix = (
        "    Name the variable with a string literal or a module-level constant, so that "
        "the knob can be registered.\n"
    )
    assert check(root) == (
        0,
        "pkg/knobs.py:9:5: KNB006 warning: The variable read by `fused: PREFIX + "
        "f.name.upper()` cannot be resolved (the loop over fields() names each field's "
        "variable, and 'PREFIX' is not a constant), so registry.yaml cannot register it.\n"
        + fix
        + "pkg/knobs.py:10:5: KNB006 warning: The variable read by `size: PREFIX + "
        "f.name.upper()` cannot be resolved (the loop over fields() names each field's "
        "variable, and 'PREFIX' is not a constant), so registry.yaml cannot register it.\n"
        + fix
        + "\nFound 2 warnings: 4 knobs in 4 files checked against registry.yaml (policy all).\n",
        "",
    )


def test_a_file_that_cannot_be_parsed_fails(tmp_path: Path) -> None:
    root = project(tmp_path, pkg__broken_py='import os\nx = os.environ.get("PRIMUS_X"\n')
    assert check(root) == (
        1,
        "pkg/broken.py:2:19: KNB007 error: This file could not be scanned, so its knobs are not "
        "checked: Syntax error at line 2, column 19: '(' was never closed.\n"
        "    If the file is yours, fix it. If it is code you do not edit (a vendored or "
        "installed library), leave it out of the scan in registry.yaml:\n"
        '      scan:\n        exclude:\n          - "pkg/broken.py"\n'
        "\n"
        "Found 1 error: 4 knobs in 4 files checked against registry.yaml (policy all).\n",
        "",
    )
    edit(root / "registry.yaml", "  policy: all", "  exclude: [broken.py]\n  policy: all")
    assert check(root)[0] == 0


def test_external_entry_counts_as_registered(tmp_path: Path) -> None:
    root = project(tmp_path)
    append(root, 'ALGO = os.environ.get("NCCL_ALGO", "Ring")\n')
    assert check(root)[0] == 1
    with (root / "registry.yaml").open("a", encoding="utf-8") as file:
        file.write("external:\n  NCCL_ALGO:\n    description: RCCL's algorithm.\n")
    assert check(root)[0:2] == (0, IN_SYNC.replace("4 knobs", "5 knobs"))


def test_registered_knob_outside_match_patterns(tmp_path: Path) -> None:
    root = project(tmp_path, REGISTRY_DEFAULT_ON)
    with (root / "registry.yaml").open("a", encoding="utf-8") as file:
        file.write('  NCCL_ALGO:\n    default: "Ring"\n    triage: untriaged\n')
    code, out, _ = check(root)
    assert code == 1
    assert out.splitlines()[:2] == [
        'registry.yaml:14:3: KNB002 error: NCCL_ALGO is registered, but scan.match ("PRIMUS_*") '
        "does not select it, so no scan can find it.",
        "    Add a pattern that matches it to scan.match, or move the entry under "
        "`external` if only a library reads it.",
    ]


def test_several_problems_are_sorted_and_byte_identical(tmp_path: Path) -> None:
    root = project(tmp_path, pkg__zz_py='import os\nZ = os.environ.get("PRIMUS_Z", "1") != "0"\n')
    edit(root / "pkg/model.py", 'ROPE = env_flag("PRIMUS_ROPE_TRITON")\n', "")
    edit(root / "pkg/model.py", '"PRIMUS_FP8", "0"', '"PRIMUS_FP8", "1"')
    first = check(root)
    assert first == check(root)
    codes = [line.split(": ", 1) for line in first[1].splitlines() if " KNB0" in line]
    assert codes == [
        [
            "pkg/model.py:6:7",
            'KNB003 error: PRIMUS_FP8 falls back to "1" here (on by default), but '
            'registry.yaml:20 registers default "0" (off by default).',
        ],
        [
            "pkg/zz.py:2:5",
            "KNB001 error: PRIMUS_Z is not registered in registry.yaml: it is on by "
            'default ("0" turns it off) and read here.',
        ],
        [
            "registry.yaml:15:3",
            "KNB002 error: PRIMUS_ROPE_TRITON is registered, but no code in the scan scope reads "
            "it.",
        ],
    ]


def test_a_file_nested_too_deep_fails_without_a_crash(tmp_path: Path) -> None:
    # libcst would crash the process on it (issue 18); check reports it like any file
    # it cannot scan, and the other files are still checked.
    deep = "(" * 1500 + 'os.environ.get("PRIMUS_DEEP")' + ")" * 1500
    root = project(tmp_path, pkg__deep_py=f"import os\nx = {deep}\n")
    assert check(root) == (
        1,
        "pkg/deep.py:2:1: KNB007 error: This file could not be scanned, so its knobs are not "
        "checked: "
        "Code on line 2 nests more than 200 levels deep, more than the scanner's parser can "
        "take; the file is not analysed (split the expression, or exclude the file if it is "
        "generated).\n"
        "    If the file is yours, fix it. If it is code you do not edit (a vendored or "
        "installed library), leave it out of the scan in registry.yaml:\n"
        '      scan:\n        exclude:\n          - "pkg/deep.py"\n'
        "\n"
        "Found 1 error: 4 knobs in 4 files checked against registry.yaml (policy all).\n",
        "",
    )


def test_the_help_sends_to_knobs_rule_which_every_install_has(tmp_path: Path) -> None:
    """docs/checks.md is in the repository, not in an installed package."""
    usage = " ".join(run_knobs("check", "--help", cwd=tmp_path).stdout.split())
    assert "`knobs rule CODE` explains a code (`knobs rule`: every code)." in usage
    assert "docs/checks.md" not in usage
