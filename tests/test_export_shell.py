"""Exports read back by their real consumers: a sourced file in bash and sh, a Compose env file.

Hostile values must come back unchanged and run nothing.
"""

from __future__ import annotations

import json
import re
import subprocess
from pathlib import Path

import pytest

from tests.conftest import REPO, run_knobs, write_tree
from tests.seed_recipe import RECIPE_ENV

SHELLS = ["bash", "sh"]

HOSTILE = {
    "H_SPACES": "two  spaces and\ta tab",
    "H_SINGLE": "it's",
    "H_DOUBLE": 'say "hi"',
    "H_SUBST": "$(touch pwned)",
    "H_BACKTICK": "`touch pwned`",
    "H_NEWLINE": "line one\nline two\n",
    "H_BREAKOUT": "'; touch pwned; echo '",
    "H_QUOTED_SUBST": 'it\'s $(touch pwned) "$HOME"',
    "H_DOLLAR": "$HOME ${HOME} $$ $",
    "H_BACKSLASH": "C:\\path\\n\\",
    "H_HASH": "value # not a comment",
    "H_EMPTY": "",
    "H_PADDED": "  padded  ",
    "H_UNICODE": "naïve ✓",
    "H_CR": "carriage\rreturn",
    "H_GLOB": "*",
    "H_TILDE": "~root",
    "H_SEMICOLON": "a; touch pwned && echo b | cat > pwned",
}


# What the dotenv format refuses (tests/test_export_dotenv.py): a carriage return, `${HOME}`
# (python-dotenv expands it even in single quotes), a `'` with a `$`.
DOTENV_HOSTILE = {
    n: v for n, v in HOSTILE.items() if n not in {"H_CR", "H_DOLLAR", "H_QUOTED_SUBST"}
}


def hostile_registry(values: dict[str, str]) -> str:
    external = "".join(f"  {n}:\n    description: A hostile value.\n" for n in values)
    env = "".join(f"      {n}: {json.dumps(v)}\n" for n, v in values.items())
    return (
        "version: 1\nexternal:\n"
        + external
        + "profiles:\n  hostile:\n    description: Values that try to escape.\n    env:\n"
        + env
    )


def environment_after(shell: str, script: str, cwd: Path) -> tuple[dict[str, str], dict[str, str]]:
    """The environment of a real shell process before and after running ``script``."""
    command = f"env -0 > before.env; {script}; env -0 > after.env"
    clean = {"PATH": "/usr/local/bin:/usr/bin:/bin", "HOME": str(cwd), "LC_ALL": "C.UTF-8"}
    done = subprocess.run([shell, "-c", command], cwd=cwd, env=clean, capture_output=True)
    assert (done.returncode, done.stderr) == (0, b"")
    return _parse_env(cwd / "before.env"), _parse_env(cwd / "after.env")


def _parse_env(path: Path) -> dict[str, str]:
    entries = path.read_bytes().decode("utf-8").split("\0")
    return dict(entry.split("=", 1) for entry in entries if entry)


def changed(before: dict[str, str], after: dict[str, str]) -> dict[str, str | None]:
    names = (set(before) | set(after)) - {"_"}
    return {n: after.get(n) for n in sorted(names) if before.get(n) != after.get(n)}


@pytest.mark.parametrize("shell", SHELLS)
def test_repository_bitwise_sourced_sets_exactly_the_recipe(tmp_path: Path, shell: str) -> None:
    result = run_knobs("export", "--profile", "bitwise", cwd=REPO)
    assert (result.returncode, result.stderr) == (
        0,
        "knobs export: Set 21 variables: 15 kernel, 5 stack, 1 explicit.\n",
    )
    (tmp_path / "env.sh").write_text(result.stdout, encoding="utf-8")
    before, after = environment_after(shell, ". ./env.sh", tmp_path)
    assert changed(before, after) == RECIPE_ENV


def test_repository_bitwise_overrides_a_stale_shell(tmp_path: Path) -> None:
    result = run_knobs("export", "--profile", "bitwise", "--unset-others", cwd=REPO)
    (tmp_path / "env.sh").write_text(result.stdout, encoding="utf-8")
    stale = "export PRIMUS_HC_TRITON=1 PRIMUS_HIPBLASLT_TUNING=1 UNRELATED=1"
    before, after = environment_after("bash", f"{stale}; . ./env.sh", tmp_path)
    assert changed(before, after) == {**RECIPE_ENV, "UNRELATED": "1"}


@pytest.fixture
def hostile(tmp_path: Path) -> Path:
    return write_tree(tmp_path, {"registry.yaml": hostile_registry(HOSTILE)})


@pytest.fixture
def dotenv_hostile(tmp_path: Path) -> Path:
    return write_tree(tmp_path, {"registry.yaml": hostile_registry(DOTENV_HOSTILE)})


def export(project: Path, fmt: str, name: str, count: int = len(HOSTILE)) -> Path:
    """Export the hostile profile with --output (a pipe read as text would turn \\r into \\n)."""
    result = run_knobs(
        "export", "--registry", "registry.yaml", "-p", "hostile", "-f", fmt, "-o", name, cwd=project
    )
    assert (result.returncode, result.stdout, result.stderr) == (
        0,
        "",
        f"knobs export: Set {count} variables: {count} explicit.\n",
    )
    return project / name


def read(path: Path) -> str:
    return path.read_bytes().decode("utf-8")


@pytest.mark.parametrize("shell", SHELLS)
def test_hostile_values_survive_sh_and_run_nothing(hostile: Path, shell: str) -> None:
    export(hostile, "sh", "env.sh")
    checked = subprocess.run([shell, "-n", "env.sh"], cwd=hostile, capture_output=True)
    assert (checked.returncode, checked.stderr) == (0, b"")
    before, after = environment_after(shell, ". ./env.sh", hostile)
    assert changed(before, after) == HOSTILE
    assert not (hostile / "pwned").exists()


def test_hostile_values_survive_dotenv_as_compose_reads_it(dotenv_hostile: Path) -> None:
    path = export(dotenv_hostile, "dotenv", "app.env", len(DOTENV_HOSTILE))
    assert compose_dotenv(read(path)) == DOTENV_HOSTILE
    assert not (dotenv_hostile / "pwned").exists()


def test_dotenv_sourced_by_a_shell_runs_nothing_and_reads_the_same(dotenv_hostile: Path) -> None:
    export(dotenv_hostile, "dotenv", "app.env", len(DOTENV_HOSTILE))
    before, after = environment_after("bash", "set -a; . ./app.env; set +a", dotenv_hostile)
    assert changed(before, after) == DOTENV_HOSTILE
    assert not (dotenv_hostile / "pwned").exists()


def test_dotenv_refuses_a_value_it_cannot_hold_safely(tmp_path: Path) -> None:
    write_tree(tmp_path, {"registry.yaml": hostile_registry({"H_BAD": "`touch pwned` it's"})})
    result = run_knobs(
        "export", "--registry", "registry.yaml", "-p", "hostile", "-f", "dotenv", cwd=tmp_path
    )
    assert (result.returncode, result.stdout) == (2, "")
    assert result.stderr == (
        "knobs export: error: cannot write H_BAD in dotenv format: its value holds a single "
        "quote, a backslash pair or a final backslash (so it needs double quotes) and a $ or "
        "a backquote (which python-dotenv cannot escape in them); use --format sh or json.\n"
    )
    sh = run_knobs("export", "--registry", "registry.yaml", "-p", "hostile", cwd=tmp_path)
    assert sh.returncode == 0


def test_hostile_values_survive_github_env(hostile: Path) -> None:
    path = export(hostile, "github", "github.env")
    assert github_env(read(path)) == HOSTILE


def test_hostile_values_survive_json(hostile: Path) -> None:
    path = export(hostile, "json", "env.json")
    assert json.loads(read(path))["env"] == HOSTILE


# A reader of Compose's env-file syntax, as compose-go's dotenv parser implements it
# (parser.go: extractVarValue, extractQuotedValue, expandEscapes; then `$$` -> `$`).
# It fails on anything the exporter must never write: an unterminated quote, or a `$`
# that Compose would interpolate.
_ESCAPE = re.compile(r"\\(?:[abcfnrtv$\"\\]|0[0-7]{0,3})")
_SIMPLE = {"a": "\a", "b": "\b", "f": "\f", "n": "\n", "r": "\r", "t": "\t", "v": "\v"}


def compose_dotenv(text: str) -> dict[str, str]:
    out: dict[str, str] = {}
    i = 0
    while True:
        while i < len(text) and text[i].isspace():
            i += 1
        if i >= len(text):
            return out
        if text[i] == "#":
            end = text.find("\n", i)
            i = len(text) if end < 0 else end
            continue
        eq = text.index("=", i)
        name = text[i:eq].strip()
        assert re.fullmatch(r"[A-Za-z_][A-Za-z0-9_]*", name), name
        i = eq + 1
        while i < len(text) and text[i] in " \t\v\f\r":
            i += 1
        quote = text[i] if i < len(text) else ""
        if quote in ("'", '"'):
            value, i = _quoted(text, i + 1, quote)
            if quote == '"':
                value = _interpolate(_ESCAPE.sub(_unescape, value))
            assert text[i : i + 1] in ("", "\n"), f"text after the closing quote of {name}"
        else:
            end = text.find("\n", i)
            line = text[i:] if end < 0 else text[i:end]
            i = len(text) if end < 0 else end
            value = _interpolate(line.split(" #")[0].rstrip())
        out[name] = value


def _quoted(text: str, i: int, quote: str) -> tuple[str, int]:
    chars: list[str] = []
    escaped = False
    while i < len(text):
        char = text[i]
        i += 1
        if escaped:
            escaped = False
            chars.extend([char] if char == quote else ["\\", char])
        elif char == "\\":
            escaped = True
        elif char == quote:
            return "".join(chars), i
        else:
            chars.append(char)
    raise AssertionError("unterminated quoted value")


def _unescape(match: re.Match[str]) -> str:
    code = match.group(0)[1:]
    if code == "$":
        return "$$"
    if code[0] == "0":
        return chr(int(code[1:] or "0", 8))
    return _SIMPLE.get(code, code)


def _interpolate(value: str) -> str:
    out = []
    i = 0
    while i < len(value):
        if value[i] == "$" and value[i + 1 : i + 2] == "$":
            out.append("$")
            i += 2
            continue
        assert not re.match(r"\$[A-Za-z_{]", value[i:]), f"Compose would interpolate {value!r}"
        out.append(value[i])
        i += 1
    return "".join(out)


def github_env(text: str) -> dict[str, str]:
    """Read a $GITHUB_ENV file as the Actions runner does (NAME=value, NAME<<DELIMITER)."""
    out: dict[str, str] = {}
    lines = text.split("\n")
    assert lines.pop() == ""
    while lines:
        line = lines.pop(0)
        if "<<" in line and ("=" not in line or line.index("<<") < line.index("=")):
            name, delimiter = line.split("<<", 1)
            body = []
            while (part := lines.pop(0)) != delimiter:
                body.append(part)
            out[name] = "\n".join(body)
        else:
            name, value = line.split("=", 1)
            out[name] = value
    return out


def test_comments_cannot_break_out_either(tmp_path: Path) -> None:
    text = hostile_registry({"H_PLAIN": "1"}).replace(
        "description: Values that try to escape.",
        'description: "First line\\n$(touch pwned)\\rexport H_PLAIN=2\\u2028touch pwned"',
    )
    text = text.replace(
        "description: A hostile value.",
        'description: x\n    cost: "slow\\n`touch pwned`"',
    )
    write_tree(tmp_path, {"registry.yaml": text})
    for fmt, script in (("sh", ". ./out"), ("dotenv", "set -a; . ./out; set +a")):
        result = run_knobs(
            "export",
            "--registry",
            "registry.yaml",
            "-p",
            "hostile",
            "-f",
            fmt,
            "-o",
            "out",
            cwd=tmp_path,
        )
        assert result.returncode == 0
        lines = read(tmp_path / "out").split("\n")
        assert [line for line in lines if line and not line.startswith("#")] == [
            "export H_PLAIN='1'" if fmt == "sh" else "H_PLAIN=1"
        ]
        before, after = environment_after("bash", script, tmp_path)
        assert changed(before, after) == {"H_PLAIN": "1"}
        assert not (tmp_path / "pwned").exists()
