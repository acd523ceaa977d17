"""The dotenv export read back by its three readers: bash (`set -a; . FILE`), python-dotenv
(`dotenv_values`) and Docker Compose's env_file parser.

Docker Compose is not installed here. Its reader is tests.test_export_shell.compose_dotenv,
compose-go's parser (dotenv/parser.go, v1.16 on) in Python: a bare value to the end of the
line, trimmed, ` #` starting a comment; `'...'` literal but for `\\'`; `"..."` with the
escapes `\\\\ \\" \\$ \\n \\t ...`; `$NAME` and `${NAME}` interpolated in bare and
double-quoted values (the reader fails on any it would interpolate). The alphabet below
holds every character those rules treat apart, so the property covers them too.
"""

from __future__ import annotations

import json
import re
import subprocess
from pathlib import Path

import pytest
from dotenv import dotenv_values
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from knobregistry.export import ExportError, dotenv_quote
from tests.conftest import run_knobs, write_tree
from tests.docs_pages import docs_page
from tests.test_export_shell import compose_dotenv, hostile_registry

# Each the kind of value one reader reads differently from another when it is quoted
# the wrong way: quotes, backslashes, `$`, backquotes, `#`, spaces, `=`, unicode, empty.
WRITTEN = {
    "H01_EMPTY": "",
    "H02_PLAIN": "Ring",
    "H03_EQUALS": "a=b==c",
    "H04_PATH": "/opt/rocm-6.2/lib:/usr/lib",
    "H05_SPACES": "two  words",
    "H06_PADDED": "  padded  ",
    "H07_TAB": "a\tb",
    "H08_HASH_SPACE": "value # not a comment",
    "H09_HASH_FIRST": "#start",
    "H10_HASH_TAB": "a\t#b",
    "H11_SINGLE": "it's",
    "H12_DOUBLE": 'say "hi"',
    "H13_BOTH_QUOTES": 'it\'s "both"',
    "H14_DOLLAR": "$HOME",
    "H15_DOLLAR_PAREN": "$(touch pwned)",
    "H16_DOLLAR_DOLLAR": "$$ and $",
    "H17_DOLLAR_BRACE_OPEN": "${HOME",
    "H18_BRACE_COLON": "${A:B}",
    "H19_BACKQUOTE": "`touch pwned`",
    "H20_BACKSLASH": "C:\\path",
    "H21_BACKSLASH_N": "a\\nb",
    "H22_BACKSLASH_PAIR": "a\\\\b",
    "H23_BACKSLASH_END": "ends\\",
    "H24_BACKSLASH_QUOTE": "\\'",
    "H25_BACKSLASH_DOLLAR": "\\$x",
    "H26_SINGLE_BACKSLASH": "it's C:\\",
    "H27_NEWLINE": "line one\nline two\n",
    "H28_UNICODE": "naïve ✓ 中",
    "H29_NBSP": "\u00a0nbsp\u00a0",
    "H30_ESCAPE": "\x1b]0;title\x07",
    "H31_LINE_SEPARATORS": "a\u2028b\u0085c",
    "H32_BANG": "!! !$",
    "H33_GLOB": "* ? [a]",
    "H34_TILDE": "~root",
    "H35_SEMICOLON": "a; touch pwned && echo b | cat > pwned",
}
REFUSED = {
    "H36_CR": ("carriage\rreturn", "a carriage return"),
    "H37_BRACES": ("${HOME}", "brace"),
    "H38_DEFAULT": ("x${UNSET:-fallback}", "brace"),
    "H42_BRACES_NEWLINE": ("${A\nB}", "brace"),
    "H39_QUOTE_DOLLAR": ("it's $HOME", "mix"),
    "H40_QUOTE_BACKQUOTE": ("it's `id`", "mix"),
    "H41_PAIR_DOLLAR": ("\\\\$x", "mix"),
}
MIX = (
    "its value holds a single quote, a backslash pair or a final backslash (so it needs "
    "double quotes) and a $ or a backquote (which python-dotenv cannot escape in them); "
    "use --format sh or json."
)


def reason(value: str, kind: str) -> str:
    if kind == "brace":
        shown = json.dumps(value[value.index("$") :])
        return (
            f"its value holds {shown}, which python-dotenv expands even in single quotes; "
            "use --format sh or json."
        )
    if kind == "mix":
        return MIX
    return (
        "its value holds a carriage return, which python-dotenv reads as a line break; "
        "use --format sh or json."
    )


def read_by_bash(folder: Path, file: str, names: list[str]) -> dict[str, str]:
    """What `set -a; . FILE` in bash sets ``names`` to (NUL-separated, so nothing is lost)."""
    script = f'set -a; . ./{file}; set +a; for n; do printf "%s\\0" "${{!n}}"; done'
    done = subprocess.run(
        ["bash", "-c", script, "bash", *names],
        cwd=folder,
        capture_output=True,
        env={"PATH": "/usr/bin:/bin", "HOME": "/nonexistent", "LC_ALL": "C.UTF-8"},
        check=False,
    )
    assert (done.returncode, done.stderr) == (0, b"")
    return dict(zip(names, done.stdout.decode("utf-8").split("\0")[:-1], strict=True))


def read_by_all(folder: Path, file: str, names: list[str]) -> list[dict[str, str]]:
    """The values as bash, python-dotenv and Compose read them."""
    text = (folder / file).read_bytes().decode("utf-8")
    python = {n: v for n, v in dotenv_values(folder / file).items() if v is not None}
    return [read_by_bash(folder, file, names), python, compose_dotenv(text)]


def export(folder: Path, values: dict[str, str]) -> tuple[int, str]:
    write_tree(folder, {"registry.yaml": hostile_registry(values)})
    result = run_knobs(
        "export", "-r", "registry.yaml", "-p", "hostile", "-f", "dotenv", "-o", "app.env",
        cwd=folder,
    )  # fmt: skip
    return result.returncode, result.stderr


def test_every_hostile_value_written_reads_the_same_in_all_three(tmp_path: Path) -> None:
    code, _ = export(tmp_path, WRITTEN)
    assert code == 0
    for reader in read_by_all(tmp_path, "app.env", sorted(WRITTEN)):
        assert reader == WRITTEN
    assert not (tmp_path / "pwned").exists()


@pytest.mark.parametrize("name", sorted(REFUSED))
def test_a_value_no_quoting_writes_for_all_three_is_refused(tmp_path: Path, name: str) -> None:
    value, kind = REFUSED[name]
    assert export(tmp_path, {name: value}) == (
        2,
        f"knobs export: error: cannot write {name} in dotenv format: {reason(value, kind)}\n",
    )
    assert not (tmp_path / "app.env").exists()


# The example of docs/profiles.md, and the value it refuses.
GUIDE = {
    "NCCL_ALGO": "Ring",
    "PRIMUS_HC_TRITON": "0",
    "SPACED": "two words",
    "MULTI": "line one\nline two",
    "PRICE": "$5, not run: $(id)",
    "QUOTED": 'it\'s "quoted"',
}


def test_the_example_and_the_refusal_in_the_guide_are_real_output(tmp_path: Path) -> None:
    guide = docs_page("profiles.md")
    assert export(tmp_path, GUIDE) == (0, "knobs export: Set 6 variables: 1 stack, 5 explicit.\n")
    written = (tmp_path / "app.env").read_text(encoding="utf-8")
    block = "".join(f"{n}={dotenv_quote(v)}\n" for n, v in GUIDE.items())
    assert "\n```sh\n" + block + "```\n" in guide
    assert all(line in written.splitlines() for line in block.splitlines())
    code, error = export(tmp_path / "refused", {"GREETING": "it's $USER"})
    assert code == 2
    assert f"    {error}" in guide


def stated_reason_holds(value: str, message: str) -> bool:
    """Whether what a refusal says of ``value`` is true of it."""
    if message == MIX:
        double = "'" in value or "\\\\" in value or value.endswith("\\")
        return double and ("$" in value or "`" in value)
    if message == reason(value, "cr"):
        return "\r" in value
    braces = re.fullmatch(r"its value holds (\".*\"), which python-dotenv expands .*", message)
    return braces is not None and json.loads(braces.group(1)) in value


# Every character a reader treats apart, and a few ordinary ones.
ALPHABET = st.sampled_from(
    [*"aZ09_-.=:/ \t#'\"$`\\{}()!*?~;&|<>\n\r", "\u00a0", "\u2028", "\x1b", "é", "中"]
)


@settings(
    max_examples=60,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)
@given(values=st.lists(st.text(ALPHABET, max_size=12), min_size=1, max_size=8))
def test_what_dotenv_quote_writes_all_three_read_back(tmp_path: Path, values: list[str]) -> None:
    """A value is written so that all three read it back, or refused for a stated reason."""
    written: dict[str, str] = {}
    for index, value in enumerate(values):
        try:
            written[f"V{index}"] = dotenv_quote(value)
        except ExportError as error:
            assert stated_reason_holds(value, str(error)), (value, str(error))
    text = "".join(f"{name}={quoted}\n" for name, quoted in written.items())
    (tmp_path / "p.env").write_text(text, encoding="utf-8")
    expected = {name: values[int(name[1:])] for name in written}
    for reader in read_by_all(tmp_path, "p.env", sorted(written)):
        assert reader == expected
