"""Every export format and every class of character: written exactly, read back exactly.

Through the real CLI with standard output redirected to a file (where click used to strip
ANSI escapes), then read back as each consumer reads it: `bash` and `dash` sourcing the sh
file and the dotenv file (`set -a`), the GitHub runner's rules for $GITHUB_ENV, JSON, YAML.
"""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from collections.abc import Mapping
from pathlib import Path

import pytest
import yaml
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from knobregistry.export import ExportError, dotenv_quote
from tests.conftest import run_knobs
from tests.github_env import read_github_env

SHELLS = [name for name in ("bash", "dash") if shutil.which(name)]

# One value per class of character; names sort in this order.
CLASSES = {
    "V01_CONTROL": "".join(chr(c) for c in range(1, 32) if c not in (10, 13)),
    "V02_ANSI": "\x1b[31mred\x1b[0m \x1b]0;title\x07",
    "V03_DEL_C1": "\x7f\x85\x9b31m",
    "V04_LINE_SEPARATORS": "a\u2028b\u2029c",
    "V05_NEWLINES": "one\ntwo\r\nthree\rfour\n",
    "V06_QUOTES": 'it\'s "quoted" \\ back',
    "V07_SHELL": "$HOME `id` $(id) ${X:-y} !! ; & | * ? ~ #",
    "V08_SPACES": "  padded \t",
    "V09_EMPTY": "",
    "V10_UNICODE": "\u00e9\u4e2d\U0001f600\ufeff\ufffd",
}


def registry_text(values: Mapping[str, str], config: Mapping[str, str]) -> str:
    """A registry whose profile `all` sets ``values`` and ``config``; `dotenv` what it can hold."""
    holdable = {name: value for name, value in values.items() if _dotenv_ok(value)}
    document = {
        "version": 1,
        "knobs": {},
        "external": {name: {"description": "A value."} for name in values},
        "config": {key: {"backend": "megatron", "description": "A key."} for key in config},
        "profiles": {
            "all": {"kind": "custom", "description": "Every value.", "env": dict(values)}
            | ({"config": dict(config)} if config else {}),
            "dotenv": {"kind": "custom", "description": "Values for dotenv.", "env": holdable},
        },
    }
    return yaml.safe_dump(document, allow_unicode=False, sort_keys=False, width=10_000)


def _dotenv_ok(value: str) -> bool:
    try:
        dotenv_quote(value)
    except ExportError:
        return False
    return True


def export_to_file(folder: Path, fmt: str, profile: str = "all") -> Path:
    """`knobs export --format FMT > FILE`: standard output is a file, not a terminal."""
    out = folder / f"out.{fmt}"
    with out.open("wb") as file:
        done = subprocess.run(
            [sys.executable, "-m", "knobregistry", "export", "-p", profile, "-f", fmt],
            cwd=folder,
            stdout=file,
            stderr=subprocess.PIPE,
            check=False,
        )
    assert done.returncode == 0, done.stderr.decode()
    return out


def sourced(shell: str, file: Path, names: list[str], *, allexport: bool = False) -> dict[str, str]:
    """The values of ``names`` after ``shell`` sources ``file``; each printed NUL-terminated."""
    script = (
        "set -a; " if allexport else ""
    ) + '. "$1"; shift; for n; do eval "printf \'%s\\0\' \\"\\${$n}\\""; done'
    done = subprocess.run(
        [shell, "-c", script, shell, str(file), *names],
        capture_output=True,
        check=False,
        env={"PATH": "/usr/bin:/bin"},
    )
    assert done.returncode == 0, done.stderr.decode()
    printed = done.stdout.decode("utf-8").split("\0")[:-1]
    return dict(zip(names, printed, strict=True))


def read_back(
    folder: Path, values: Mapping[str, str], config: Mapping[str, str], shells: list[str]
) -> None:
    """Export in every format and assert each consumer reads ``values`` and ``config`` back."""
    names = sorted(values)
    holdable = {n: v for n, v in values.items() if _dotenv_ok(v)}
    sh = export_to_file(folder, "sh")
    dotenv = export_to_file(folder, "dotenv", "dotenv")
    for shell in shells:
        assert sourced(shell, sh, names) == dict(values), shell
        assert sourced(shell, dotenv, sorted(holdable), allexport=True) == holdable, shell
    github = export_to_file(folder, "github").read_bytes().decode("utf-8")
    assert read_github_env(github) == dict(values)
    document = json.loads(export_to_file(folder, "json").read_bytes().decode("utf-8"))
    assert (document["env"], document["config"]) == (dict(values), dict(config))
    overlay = yaml.safe_load(export_to_file(folder, "config").read_bytes().decode("utf-8"))
    assert (overlay or {}) == dict(config)


@pytest.mark.parametrize("shell", ["bash", "dash"])
def test_every_class_of_character_reads_back_from_every_format(tmp_path: Path, shell: str) -> None:
    if shutil.which(shell) is None:
        pytest.skip(f"{shell} is not installed")
    config = {f"k{i}": value for i, value in enumerate(CLASSES.values())}
    (tmp_path / "registry.yaml").write_text(registry_text(CLASSES, config), encoding="utf-8")
    read_back(tmp_path, CLASSES, config, [shell])


def test_sh_writes_every_class_raw_in_single_quotes(tmp_path: Path) -> None:
    (tmp_path / "registry.yaml").write_text(registry_text(CLASSES, {}), encoding="utf-8")
    lines = export_to_file(tmp_path, "sh").read_bytes().decode("utf-8")
    body = lines[lines.index("export V01") :]
    expected = "".join(
        f"export {name}='{value.replace(chr(39), chr(39) + chr(92) + chr(39) + chr(39))}'\n"
        for name, value in CLASSES.items()
    )
    assert body == expected


def test_github_writes_values_raw_and_line_breaks_as_heredocs(tmp_path: Path) -> None:
    (tmp_path / "registry.yaml").write_text(registry_text(CLASSES, {}), encoding="utf-8")
    text = export_to_file(tmp_path, "github").read_bytes().decode("utf-8")
    heredocs = [line.partition("<<")[0] for line in text.splitlines() if "<<KNOBS_EOF_" in line]
    assert heredocs == ["V05_NEWLINES"]
    assert "V02_ANSI=\x1b[31mred\x1b[0m \x1b]0;title\x07\n" in text
    assert "V04_LINE_SEPARATORS=a\u2028b\u2029c\n" in text


def test_dotenv_quotes_each_class(tmp_path: Path) -> None:
    (tmp_path / "registry.yaml").write_text(registry_text(CLASSES, {}), encoding="utf-8")
    text = export_to_file(tmp_path, "dotenv", "dotenv").read_bytes().decode("utf-8")
    assert "V02_ANSI='\x1b[31mred\x1b[0m \x1b]0;title\x07'\n" in text
    assert "V03_DEL_C1='\x7f\x85\x9b31m'\n" in text
    assert 'V06_QUOTES="it\'s \\"quoted\\" \\\\ back"\n' in text
    assert "V09_EMPTY=\n" in text


def test_config_double_quotes_yaml_line_breaks(tmp_path: Path) -> None:
    config = {"nel": "a\x85b", "ls": "a\u2028b", "ansi": "\x1b[1m"}
    (tmp_path / "registry.yaml").write_text(registry_text({}, config), encoding="utf-8")
    text = export_to_file(tmp_path, "config").read_bytes().decode("utf-8")
    assert text.endswith('ansi: "\\e[1m"\nls: "a\\Lb"\nnel: "a\\Nb"\n')
    assert yaml.safe_load(text) == config


def test_a_description_with_escapes_keeps_the_config_file_readable(tmp_path: Path) -> None:
    text = registry_text({}, {"k": "v"}).replace("Every value.", '"Red \\e[31m, NEL \\N end"')
    (tmp_path / "registry.yaml").write_text(text, encoding="utf-8")
    out = export_to_file(tmp_path, "config").read_bytes().decode("utf-8")
    assert "# Red \\x1b[31m, NEL\n#  end\n" in out  # NEL starts a new comment line
    assert yaml.safe_load(out) == {"k": "v"}


def test_a_lone_surrogate_from_the_scan_is_refused_naming_the_variable() -> None:
    from knobregistry.export import Export, render
    from knobregistry.profiles import ResolvedProfile
    from knobregistry.registry import ProfileKind

    resolved = ResolvedProfile(
        name="p", kind=ProfileKind.CUSTOM, description="d", chain=("p",), env={"X": "a\ud800"}
    )
    with pytest.raises(ExportError) as caught:
        render(Export(profile=resolved, registry="registry.yaml"), "sh")
    assert str(caught.value) == (
        "cannot export X: its value holds a lone surrogate, which no UTF-8 file or "
        "environment can hold."
    )


def test_standard_output_is_written_exactly_to_a_pipe(tmp_path: Path) -> None:
    (tmp_path / "registry.yaml").write_text(registry_text(CLASSES, {}), encoding="utf-8")
    command = [sys.executable, "-m", "knobregistry", "export", "-p", "all"]
    piped = subprocess.run(command, cwd=tmp_path, capture_output=True, check=False)
    written = run_knobs("export", "-p", "all", "-o", "env.sh", cwd=tmp_path)
    assert written.returncode == piped.returncode == 0
    assert piped.stdout == (tmp_path / "env.sh").read_bytes()
    assert b"\x1b[31mred\x1b[0m" in piped.stdout


# Values: arbitrary text (no NUL, no lone surrogate), mixed with the pieces that break quoting.
PIECES = st.sampled_from(
    [
        *("\x1b[31m", "\x1b[0m", "\x1b]0;t\x07", "\x85", "\u2028", "\r\n", "\r", "\n", "'", '"'),
        *("\\", "$", "`", "$(id)", "#", " ", "\t", "=", "<<", "KNOBS_EOF_"),
    ]
)
TEXT = st.text(st.characters(exclude_categories=["Cs"], exclude_characters="\0"), max_size=8)
VALUES = st.lists(st.one_of(PIECES, TEXT), max_size=6).map("".join)


@pytest.mark.slow
@settings(
    max_examples=8,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)
@given(values=st.lists(VALUES, min_size=1, max_size=24))
def test_random_values_round_trip_through_every_format(tmp_path: Path, values: list[str]) -> None:
    env = {f"V{i:02d}": value for i, value in enumerate(values)}
    config = {f"k{i:02d}": value for i, value in enumerate(values)}
    (tmp_path / "registry.yaml").write_text(registry_text(env, config), encoding="utf-8")
    read_back(tmp_path, env, config, SHELLS)  # bash, and dash where installed
