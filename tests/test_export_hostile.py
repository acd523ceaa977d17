"""The contract of every export format with hostile text in every field it writes.

Newlines (LF, CRLF, CR), form feed, vertical tab, NEL, U+2028, U+2029, NUL, ANSI and bidi
controls, the docs' marker text, fences, quotes and code are put in the registry's path,
the profile's description, a knob's cost, the variables' values and the config values.
Each file is then read back with its format's own reader (Python's `ast`, PyYAML, `bash
-n` and bash sourcing it, python-dotenv, JSON, the GitHub runner's rules): it parses, its
values come back exactly, every comment line stays a comment, and nothing runs.
"""

from __future__ import annotations

import ast
import json
import subprocess
import sys
from pathlib import Path

import pytest
import yaml
from dotenv import dotenv_values

from knobregistry.export import FORMATS, ExportFormat
from tests.conftest import run_knobs
from tests.github_env import read_github_env

# What a file read by the wrong rules would run, in Python and in a shell.
CODE = "\nimport os; os.system('touch ran-py')\n$(touch ran-sh) `touch ran-tick`\n"
BREAKS = "a\nb\r\nc\rd\x0ce\x0bf\x85g\u2028h\u2029i"
MARKERS = "\n<!-- knobs:end profile:p -->\n<!-- knobs:begin knobs -->\n```\n~~~\n"
CONTROLS = "\x1b[31mred\x1b[0m \x07 \u202eevil\t\x7f"
# No NUL: no environment or command line can hold one (refused: test_export_escaping).
VALUE = f"{BREAKS}{MARKERS}{CONTROLS}{CODE}'quote\" \\ end"
TEXT = VALUE + "\x00nul"  # descriptions and costs are comments: a NUL is escaped there
# What python-dotenv, bash and Compose all read alike (dotenv.py): no CR, no quote pair.
DOTENV_VALUE = "a\nb\x0ce\x85g\u2028h\u2029i" + MARKERS + CONTROLS + CODE.replace("'", "")
REGISTRY_NAME = "reg\nimport os; os.system('touch ran-name')\n#\u2028\x1b.yaml"


def _registry() -> str:
    document = {
        "version": 1,
        "scan": {"paths": ["src"]},
        "knobs": {
            "K_FUSED": {
                "gates": {"kernel": TEXT},
                "default": "1",
                "default_on": True,
                "role": "kernel",
                "triage": "breaks-bitwise",
                "cost": TEXT,
            }
        },
        "external": {"V_TEXT": {"description": TEXT, "cost": TEXT}},
        "config": {
            "deterministic_text": {"backend": "megatron", "description": TEXT},
            "torch.use_deterministic_algorithms": {"backend": "stack", "description": TEXT},
        },
        "profiles": {
            "p": {
                "kind": "bitwise",
                "description": TEXT,
                "env": {"K_FUSED": "0", "V_TEXT": VALUE},
                "config": {
                    "deterministic_text": VALUE,
                    "torch.use_deterministic_algorithms": VALUE,
                },
            },
            "d": {
                "kind": "custom",
                "description": TEXT,
                "env": {"K_FUSED": "0", "V_TEXT": DOTENV_VALUE},
            },
        },
    }
    return yaml.safe_dump(document, allow_unicode=False, sort_keys=False, width=10_000)


@pytest.fixture(scope="module")
def project(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("hostile")
    (root / REGISTRY_NAME).write_text(_registry(), encoding="utf-8")
    (root / "src").mkdir()
    (root / "src" / "model.py").write_text(
        'import os\nFUSED = os.environ.get("K_FUSED", "1") != "0"\n', encoding="utf-8"
    )
    return root


def _export(root: Path, fmt: ExportFormat, profile: str = "p") -> str:
    out = root / f"out-{profile}{fmt.suffix}"
    done = run_knobs(
        "export", "-p", profile, "-f", fmt.name, "--registry", REGISTRY_NAME, "-o", out.name,
        cwd=root,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    return out.read_bytes().decode("utf-8")


def _comments_stay_comments(text: str, opening: str = "#") -> None:
    """Every line of the header is a comment; none holds a character a reader breaks at."""
    lines = text.split("\n")
    header = lines[: next(i for i, line in enumerate(lines) if not line.startswith(opening))]
    assert header, text
    for line in header:
        assert line.isprintable() or line == "", repr(line)


def _nothing_ran(root: Path) -> None:
    assert not sorted(p.name for p in root.glob("ran-*"))


def _bash(root: Path, script: str, file: str) -> str:
    checked = subprocess.run(["bash", "-n", file], cwd=root, capture_output=True, text=True)
    assert (checked.returncode, checked.stderr) == (0, "")
    done = subprocess.run(
        ["bash", "-c", script, "bash", file], cwd=root, capture_output=True, check=False
    )
    assert (done.returncode, done.stderr) == (0, b"")
    return done.stdout.decode("utf-8")


BY_NAME = {f.name: f for f in FORMATS}


def test_every_format_is_covered_here() -> None:
    assert sorted(BY_NAME) == sorted(READERS)


def _sh(root: Path) -> None:
    text = _export(root, BY_NAME["sh"])
    printed = _bash(root, '. "./$1"; printf "%s\\0" "$K_FUSED" "$V_TEXT"', "out-p.sh")
    assert printed.split("\0")[:-1] == ["0", VALUE]
    _comments_stay_comments(text)


def _dotenv(root: Path) -> None:
    text = _export(root, BY_NAME["dotenv"], "d")
    assert dotenv_values(root / "out-d.env") == {"K_FUSED": "0", "V_TEXT": DOTENV_VALUE}
    script = 'set -a; . "./$1"; set +a; printf "%s\\0" "$K_FUSED" "$V_TEXT"'
    assert _bash(root, script, "out-d.env").split("\0")[:-1] == ["0", DOTENV_VALUE]
    _comments_stay_comments(text)


def _json(root: Path) -> None:
    document = json.loads(_export(root, BY_NAME["json"]))
    assert document["registry"] == REGISTRY_NAME
    assert document["env"] == {"K_FUSED": "0", "V_TEXT": VALUE}
    assert document["config"] == {
        "deterministic_text": VALUE,
        "torch.use_deterministic_algorithms": VALUE,
    }


def _github(root: Path) -> None:
    assert read_github_env(_export(root, BY_NAME["github"])) == {"K_FUSED": "0", "V_TEXT": VALUE}


def _config(root: Path) -> None:
    text = _export(root, BY_NAME["config"])
    assert yaml.safe_load(text) == {"deterministic_text": VALUE}
    _comments_stay_comments(text)


def _python(root: Path) -> None:
    text = _export(root, BY_NAME["python"])
    module = ast.parse(text)
    shapes = [type(statement).__name__ for statement in module.body]
    assert shapes == ["Import", "Expr"]  # `import torch`, then the one call: nothing else
    call = module.body[1]
    assert isinstance(call, ast.Expr) and isinstance(call.value, ast.Call)
    assert ast.unparse(call.value.func) == "torch.use_deterministic_algorithms"
    assert ast.literal_eval(call.value.args[0]) == VALUE
    _comments_stay_comments(text)


def _megatron_args(root: Path) -> None:
    text = _export(root, BY_NAME["megatron-args"])
    script = '. "./$1"; printf "%s\\0" "${KNOBS_MEGATRON_ARGS[@]}"'
    printed = _bash(root, script, "out-p.sh")
    assert printed.split("\0")[:-1] == ["--deterministic-text", VALUE]
    _comments_stay_comments(text)


def _primus(root: Path) -> None:
    text = _export(root, BY_NAME["primus"])
    overlay = {"deterministic_text": VALUE}
    assert yaml.safe_load(text) == {"modules": {"pre_trainer": {"overrides": overlay}}}
    _comments_stay_comments(text)


READERS = {
    "sh": _sh,
    "dotenv": _dotenv,
    "json": _json,
    "github": _github,
    "config": _config,
    "python": _python,
    "megatron-args": _megatron_args,
    "primus": _primus,
}


@pytest.mark.parametrize("name", sorted(READERS))
def test_hostile_text_reads_back_and_runs_nothing(project: Path, name: str) -> None:
    READERS[name](project)
    _nothing_ran(project)


def test_importing_the_python_module_runs_no_text_of_the_registry_path(tmp_path: Path) -> None:
    """Row 1 of issue 41: a registry path with a line break reached a comment of `--format
    python` raw, and importing the module ran the text after it."""
    name = "r\nimport os; os.system('touch ran-import')\n#.yaml"
    registry = {
        "version": 1,
        "config": {"torch.use_deterministic_algorithms": {"backend": "stack", "description": "D."}},
        "external": {"NCCL_ALGO": {"description": "A."}},
        "profiles": {
            "p": {
                "kind": "bitwise",
                "description": "Bit for bit.",
                "env": {"NCCL_ALGO": "Ring"},
                "config": {"torch.use_deterministic_algorithms": True},
            }
        },
    }
    (tmp_path / name).write_text(yaml.safe_dump(registry), encoding="utf-8")
    done = run_knobs("export", "-p", "p", "-f", "python", "--registry", name, cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    (tmp_path / "knobs_p.py").write_text(done.stdout, encoding="utf-8")
    (tmp_path / "torch.py").write_text("def use_deterministic_algorithms(on): pass\n")
    imported = subprocess.run(
        [sys.executable, "-c", "import knobs_p"], cwd=tmp_path, capture_output=True, text=True
    )
    assert (imported.returncode, imported.stderr) == (0, "")
    assert not list(tmp_path.glob("ran-*"))
    assert "# Registry: r\\nimport os; os.system('touch ran-import')\\n#.yaml\n" in done.stdout
