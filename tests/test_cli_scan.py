"""`knobs scan` through the real command line: golden output and exit codes."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.conftest import REPO, run_knobs, write_tree

TREE = {
    "pkg/__init__.py": "",
    "pkg/envs.py": """
        import os


        def env_flag(name, default=False):
            raw = os.environ.get(name)
            if raw is None:
                return default
            return raw.lower() in ("1", "true")
        """,
    "pkg/model.py": """
        import os

        from pkg.envs import env_flag

        HC = os.environ.get("PRIMUS_HC_TRITON", "1") != "0"
        ROUTER = env_flag("PRIMUS_V4_ROUTER_TRITON", default=True)
        BLOCK = int(os.environ.get("PRIMUS_BLOCK", "64"))
        DUMP = "PRIMUS_DUMP" in os.environ

        for kind in open("kinds"):
            os.environ.get(f"PRIMUS_{kind}")
        """,
    "pkg/broken.py": 'import os\nx = os.environ.get("PRIMUS_BAD"\n',
}

TABLE = """\
knob                     default  on by default?  polarity  role     off value  read in  sites
───────────────────────────────────────────────────────────────────────────────────────────────────────
PRIMUS_BLOCK             '64'     value           -         value    -          py       pkg/model.py:7
PRIMUS_DUMP              -        no              enable    debug    -          py       pkg/model.py:8
PRIMUS_HC_TRITON         '1'      yes             enable    unknown  '0'        py       pkg/model.py:5
PRIMUS_V4_ROUTER_TRITON  'True'   yes             enable    unknown  '0'        py       pkg/model.py:6

dynamic reads (name not resolved):
  pkg/model.py:11:5: os.environ.get(f"PRIMUS_{kind}")
    the name is built at run time from values not known statically

errors (files skipped):
  pkg/broken.py: Syntax error at line 2, column 19: '(' was never closed.

4 knobs (2 on by default), 1 dynamic read, 1 error; 4 files scanned.
"""  # noqa: E501


@pytest.fixture
def tree(tmp_path: Path) -> Path:
    return write_tree(tmp_path, TREE)


def test_table_golden(tree: Path) -> None:
    result = run_knobs("scan", ".", cwd=tree)
    assert (result.returncode, result.stderr) == (0, "")
    assert result.stdout == TABLE


def test_json_golden(tree: Path) -> None:
    result = run_knobs("scan", "pkg", "--format", "json", "--match", "PRIMUS_HC_*", cwd=tree)
    assert result.returncode == 0
    assert json.loads(result.stdout) == {
        "knobs": [
            {
                "name": "PRIMUS_HC_TRITON",
                "default_on": True,
                "off_value": "0",
                "conflict": False,
                "sites": [
                    {
                        "path": "pkg/model.py",
                        "line": 5,
                        "column": 6,
                        "default": "1",
                        "default_on": True,
                        "function": "<module>",
                        "via": None,
                        "language": "python",
                        "reason": None,
                        "kind": "get",
                        "gate": "boolean",
                        "polarity": "enable",
                        "off_value": "0",
                        "on_value": "1",
                        "off_values": ["0"],
                        "on_values": [
                            *("1", "true", "yes", "on", "True", "TRUE", "Yes", "YES", "On", "ON"),
                            *("false", "no", "off", "False", "FALSE", "No", "NO", "Off", "OFF", ""),
                        ],
                        "choices": [],
                        "target": "HC",
                        "default_computed": None,
                    }
                ],
                "kind": "boolean",
                "polarity": "enable",
                "reason": None,
                "on_value": "1",
                "conflict_reason": None,
                "role": "unknown",
                "role_reason": "the name PRIMUS_HC_TRITON says TRITON"
                ", a hint of a kernel choice, but no code it reaches"
                " shows one: words alone are not evidence",
                "set_by": [],
            }
        ],
        "dynamic": [],  # f"PRIMUS_{kind}" cannot name a PRIMUS_HC_* variable
        "errors": [
            {
                "path": "pkg/broken.py",
                "message": "Syntax error at line 2, column 19: '(' was never closed.",
            }
        ],
        "writes": [],
        "wrappers": [
            {"name": "pkg.envs.env_flag", "path": "pkg/envs.py", "line": 4, "name_param": "name"}
        ],
        "files_scanned": 4,
    }


def test_match_keeps_dynamic_reads_that_may_match(tree: Path) -> None:
    matching = run_knobs("scan", "pkg", "-f", "json", "-m", "PRIMUS_*", cwd=tree)
    other = run_knobs("scan", "pkg", "-f", "json", "-m", "NCCL_*", cwd=tree)
    assert [d["line"] for d in json.loads(matching.stdout)["dynamic"]] == [11]
    assert json.loads(other.stdout)["dynamic"] == []


def test_json_is_byte_identical_between_runs(tree: Path) -> None:
    first = run_knobs("scan", ".", "--format", "json", cwd=tree)
    second = run_knobs("scan", ".", "--format", "json", cwd=tree)
    assert first.stdout == second.stdout
    assert first.stdout.endswith("}\n")


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (
            ("scan", "missing"),
            "Error: Invalid value for '[PATHS]...': Path 'missing' does not exist.",
        ),
        (
            ("scan", ".", "--format", "xml"),
            "Error: Invalid value for '--format' / '-f': 'xml' is not one of 'table', 'json'.",
        ),
    ],
)
def test_bad_arguments_exit_2(tree: Path, args: tuple[str, ...], message: str) -> None:
    result = run_knobs(*args, cwd=tree)
    assert result.returncode == 2
    assert result.stdout == ""
    assert result.stderr.rstrip("\n").splitlines()[-1] == message


def test_help_lists_the_options(tree: Path) -> None:
    result = run_knobs("scan", "--help", cwd=tree)
    assert result.returncode == 0
    for option in ("--match PATTERN", "--exclude GLOB", "--format [table|json]"):
        assert option in result.stdout


def test_no_path_scans_the_current_folder(tree: Path) -> None:
    """As `knobs init` does: `knobs scan` alone is `knobs scan .`."""
    result = run_knobs("scan", cwd=tree)
    assert (result.returncode, result.stderr, result.stdout) == (0, "", TABLE)


def test_a_null_byte_is_placed_by_line_and_column(tmp_path: Path) -> None:
    (tmp_path / "nul.py").write_bytes(b'import os\nx = os.environ.get("A")\x00\n')
    result = run_knobs("scan", "--no-cache", "nul.py", cwd=tmp_path)
    assert "  nul.py: Syntax error at line 2, column 24: source code string cannot contain " in (
        result.stdout
    )


def test_the_command_list_gives_each_first_sentence_whole(tmp_path: Path) -> None:
    result = run_knobs("--help", cwd=tmp_path, env={"COLUMNS": "80"})
    commands = result.stdout.split("Commands:\n", 1)[1]
    assert "..." not in commands
    flat = " ".join(commands.split())
    assert (
        "diff List the knobs that HEAD (default: HEAD) adds, removes, flips or moves since BASE."
        in flat
    )
    assert (
        "docs Render the registry into Markdown blocks (knob table, recipes), or check them."
        in flat
    )


def test_a_profile_without_config_keys_says_so_above_the_empty_overlay() -> None:
    result = run_knobs("export", "-p", "bitwise", "-f", "config", cwd=REPO / "examples")
    assert result.returncode == 0, result.stderr
    assert result.stdout.endswith(
        "# Profile bitwise sets no trainer-config keys: nothing to overlay.\n{}\n"
    )


LAUNCHED = {
    "src/model.py": """
        import os

        FUSED = os.environ.get("DEMO_FUSED", "1") != "0"
        OUT = os.environ.get("DEMO_OUT")
        """,
    "launch/run.sh": """
        #!/bin/bash
        export DEMO_FUSED=1
        if [[ -f /opt/fast ]]; then
          DEMO_OUT=$(mktemp -d) python -m src.model
        fi
        srun --export=ALL,DEMO_FUSED=0 python -m src.model
        echo "${DEMO_ZONE:-us-central1}" "${DEMO_ROOT:-${BASE}/runs}"
        """,
}

LAUNCHED_TABLE = """\
knob        default                  on by     polarity  role     off    read  sites            set by
                                     default?                     value  in
────────────────────────────────────────────────────────────────────────────────────────────────────────────────────────
DEMO_FUSED  '1'                      yes       enable    unknown  '0'    py    src/model.py:3   launch/run.sh:2 '1' (+1)
DEMO_OUT    -                        value     -         value    -      py    src/model.py:4   launch/run.sh:4 computed
DEMO_ROOT   ${BASE}/runs (computed)  value     -         value    -      sh    launch/run.sh:7  -
DEMO_ZONE   'us-central1'            value     -         value    -      sh    launch/run.sh:7  -

4 knobs (1 on by default), 0 dynamic reads, 0 errors; 2 files scanned.
"""  # noqa: E501


def test_table_shows_what_sets_each_knob_and_computed_defaults(tmp_path: Path) -> None:
    root = write_tree(tmp_path, LAUNCHED)
    result = run_knobs("scan", ".", "--match", "DEMO_*", cwd=root)
    assert (result.returncode, result.stderr) == (0, "")
    assert result.stdout == LAUNCHED_TABLE


def test_json_lists_set_by_on_each_knob(tmp_path: Path) -> None:
    root = write_tree(tmp_path, LAUNCHED)
    result = run_knobs("scan", ".", "--format", "json", "--match", "DEMO_*", cwd=root)
    assert result.returncode == 0
    knobs = {k["name"]: k for k in json.loads(result.stdout)["knobs"]}
    assert knobs["DEMO_FUSED"]["set_by"] == [
        {
            "name": "DEMO_FUSED",
            "path": "launch/run.sh",
            "line": 2,
            "column": 8,
            "value": "1",
            "kind": "export",
            "function": "<script>",
            "via": None,
            "language": "shell",
            "condition": None,
            "when": {},
            "computed": None,
        },
        {
            "name": "DEMO_FUSED",
            "path": "launch/run.sh",
            "line": 6,
            "column": 6,
            "value": "0",
            "kind": "prefix",
            "function": "<script>",
            "via": None,
            "language": "shell",
            "condition": None,
            "when": {},
            "computed": None,
        },
    ]
    (out,) = knobs["DEMO_OUT"]["set_by"]
    assert (out["value"], out["computed"], out["condition"]) == (
        None,
        "$(mktemp -d)",
        "[[ -f /opt/fast ]]",
    )
    (root_site,) = knobs["DEMO_ROOT"]["sites"]
    assert (root_site["default"], root_site["default_computed"]) == (None, "${BASE}/runs")
    assert knobs["DEMO_ZONE"]["sites"][0]["default"] == "us-central1"
    assert knobs["DEMO_ZONE"]["set_by"] == []


def test_include_matches_file_names_as_its_help_says(tmp_path: Path) -> None:
    write_tree(tmp_path, {"kernels/fused.py": 'import os\nX = os.environ.get("DEMO_X", "1")\n'})
    by_folder = run_knobs("scan", "--include", "kernels", "--format", "json", cwd=tmp_path)
    by_file = run_knobs("scan", "--include", "fused.py", "--format", "json", cwd=tmp_path)
    assert [k["name"] for k in json.loads(by_folder.stdout)["knobs"]] == []
    assert [k["name"] for k in json.loads(by_file.stdout)["knobs"]] == ["DEMO_X"]
    usage = " ".join(run_knobs("scan", "--help", cwd=tmp_path).stdout.split())
    assert "In the folders it walks, scan only files whose name matches this glob" in usage
