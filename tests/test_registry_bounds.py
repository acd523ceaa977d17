"""Hostile registries: deep, huge, not a file, lone surrogates. Refused with a short, positioned
message and exit 2, through the real CLI and the pytest plugin; never a traceback."""

from __future__ import annotations

import os
from pathlib import Path

import pytest
import yaml

from knobregistry.registry import RegistryError, document, load_registry, loads_registry
from knobregistry.registry.compose import MAX_DEPTH, MAX_NODES, compose, loaders
from knobregistry.registry.document import Document, parse_document
from tests.conftest import REPO, run_knobs
from tests.test_plugin import PLUGIN, failure_section

pytest_plugins = ["pytester"]

DEEP = 600  # PyYAML's recursive composer needed ~1,000 frames at 500 levels

KNOB = """\
version: 1
knobs:
  DEMO_FUSED:
    default: "1"
    default_on: true
    triage: reproducible
    gates:
      kernel: {kernel}
profiles:
  bitwise:
    kind: custom
    description: All off.
    env:
      DEMO_FUSED: {value}
"""


def write(folder: Path, text: str) -> Path:
    path = folder / "registry.yaml"
    path.write_text(text, encoding="utf-8")
    return path


@pytest.mark.parametrize(
    ("shape", "text", "where"),
    [
        ("flow lists", "version: 1\nknobs:\n  X: " + "[" * DEEP + "]" * DEEP + "\n", "3:69"),
        (
            "flow maps",
            "version: 1\nknobs:\n  X: " + "{a: " * DEEP + "1" + "}" * DEEP + "\n",
            "3:255",
        ),
        ("block lists", "version: 1\nx:\n" + "- " * DEEP + "1\n", "3:129"),
        (
            "block maps",
            "version: 1\n"
            + "".join(" " * i + f"k{i}:\n" for i in range(DEEP))
            + " " * DEEP
            + "1\n",
            "66:65",
        ),
        ("unclosed", "version: 1\nx: " + "[" * DEEP + "\n", "2:68"),
    ],
)
def test_deep_nesting_is_refused_with_its_position(
    tmp_path: Path, shape: str, text: str, where: str
) -> None:
    write(tmp_path, text)
    result = run_knobs("check", cwd=tmp_path)
    assert (result.returncode, result.stdout) == (2, "")
    assert (
        result.stderr
        == f"registry.yaml:{where}: the document nests deeper than {MAX_DEPTH} levels.\n"
    )


def test_deep_nesting_fails_the_pytest_plugin_cleanly(pytester: pytest.Pytester) -> None:
    pytester.makefile(
        ".yaml", registry="version: 1\nknobs:\n  X: " + "[" * DEEP + "]" * DEEP + "\n"
    )
    pytester.makeini("[pytest]\nknobs_registry = registry.yaml\naddopts = -p no:cacheprovider\n")
    pytester.makepyfile(test_ok="def test_ok():\n    assert True\n")
    result = pytester.runpytest_subprocess(*PLUGIN)
    result.assert_outcomes(passed=1, failed=4)
    assert "RecursionError" not in result.stdout.str()
    assert failure_section(result.stdout.str(), "docs") == (
        f"registry.yaml:3:69: the document nests deeper than {MAX_DEPTH} levels.\n"
    )


def test_a_merge_of_itself_is_refused() -> None:
    with pytest.raises(RegistryError) as caught:
        loads_registry("version: 1\nknobs: &a\n  <<: *a\n")
    assert (
        str(caught.value)
        == f"registry.yaml:2:8: the document nests deeper than {MAX_DEPTH} levels."
    )


def test_values_are_counted_before_composing() -> None:
    text = "version: 1\nx: [" + ", ".join(["1"] * MAX_NODES) + "]\n"
    with pytest.raises(RegistryError) as caught:
        loads_registry(text)
    (problem,) = caught.value.problems
    assert (problem.line, problem.column) == (2, 5 + 3 * (MAX_NODES - 3))  # root, version, list
    assert problem.message.startswith(f"the document expands to more than {MAX_NODES} values")


def test_a_huge_scalar_is_quoted_in_a_short_excerpt(tmp_path: Path) -> None:
    write(tmp_path, "x" * 7_000_000 + "\n")
    result = run_knobs("check", cwd=tmp_path)
    assert (result.returncode, result.stdout) == (2, "")
    assert result.stderr == (
        f"registry.yaml:1:1: expected a mapping, got '{'x' * 60}'... (7000000 characters)\n"
    )


def test_a_file_linked_as_the_registry_is_not_echoed(tmp_path: Path) -> None:
    lines = [f"user{i}:x:{i}:{i}::/home/user{i}:/bin/sh" for i in range(40)]
    secret = tmp_path / "passwd"
    secret.write_text("".join(f"{line}\n" for line in lines), encoding="utf-8")
    (tmp_path / "registry.yaml").symlink_to(secret)
    result = run_knobs("check", cwd=tmp_path)
    assert (result.returncode, result.stdout) == (2, "")
    folded = " ".join(lines)  # YAML reads the lines as one plain scalar
    assert result.stderr == (
        "registry.yaml:1:1: expected a mapping, got "
        f"{folded[:60]!r}... ({len(folded)} characters)\n"
    )


def test_the_system_password_file_is_not_echoed(tmp_path: Path) -> None:
    if not Path("/etc/passwd").is_file():
        pytest.skip("no /etc/passwd here")
    (tmp_path / "registry.yaml").symlink_to("/etc/passwd")
    result = run_knobs("check", cwd=tmp_path)
    assert result.returncode == 2
    assert len(result.stderr.splitlines()) == 1
    assert len(result.stderr) < 200


def test_a_mapping_of_many_wrong_keys_is_not_echoed_key_by_key(tmp_path: Path) -> None:
    # A secrets file read as YAML is a mapping of wrong keys (/etc/shadow's lines end in
    # ":"): only the first problems are shown, then how many more there are.
    secrets = "".join(f"secret_token_{at}: hash{at}\n" for at in range(20_000))
    (tmp_path / "secrets").write_text(secrets, encoding="utf-8")
    (tmp_path / "registry.yaml").symlink_to(tmp_path / "secrets")
    result = run_knobs("check", cwd=tmp_path)
    lines = result.stderr.splitlines()
    assert (result.returncode, len(lines)) == (2, 25)
    assert lines[0] == (
        "registry.yaml:1:1: missing required key 'version'; start the file with `version: 1`."
    )
    assert lines[-2].startswith("registry.yaml:23:1: secret_token_22: unknown key")
    assert lines[-1] == "registry.yaml: 19977 more problems are not shown; fix these first."


def test_a_huge_key_is_cut_in_the_key_path_and_the_message() -> None:
    key = "K" * 1000  # YAML's longest plain key
    with pytest.raises(RegistryError) as caught:
        loads_registry(f"version: 1\nknobs: {{}}\n{key}: 1\n{key}: 2\n")
    cut = "K" * 60 + "..."
    assert str(caught.value).splitlines() == [
        f'registry.yaml:3:1: ["{cut}"]: unknown key; the keys allowed here are '
        "'version', 'scan', 'knobs', 'external', 'config', 'profiles'",
        f"registry.yaml:4:1: [\"{cut}\"]: duplicate key: '{cut}' is already defined on "
        "line 3, and YAML would silently keep only the last one. Merge the two entries into one.",
    ]


@pytest.mark.parametrize(
    ("kind", "make", "reason"),
    [
        ("device", lambda p: p.symlink_to("/dev/zero"), "it is a device, not a regular file"),
        ("fifo", lambda p: os.mkfifo(p), "it is a named pipe, not a regular file"),
        (
            "too big",
            lambda p: p.write_bytes(b"#" * (8 * 1024 * 1024 + 1)),
            "it is larger than 8388608 bytes",
        ),
    ],
)
def test_a_registry_that_is_not_a_small_regular_file_is_refused(
    tmp_path: Path, kind: str, make: object, reason: str
) -> None:
    path = tmp_path / "registry.yaml"
    make(path)  # type: ignore[operator]
    with pytest.raises(RegistryError) as caught:
        load_registry(path, display="registry.yaml")
    assert str(caught.value) == f"registry.yaml: cannot read the registry: {reason}."


SURROGATE = (
    "the value holds a lone surrogate ('\\ud800'), half of a UTF-16 pair, which no UTF-8 file "
    "or environment can hold; write the character itself, or escape it as \\U and eight hex "
    "digits."
)


@pytest.mark.parametrize(
    "command", [("check",), ("export", "-p", "bitwise"), ("docs",), ("explain", "DEMO_FUSED")]
)
def test_a_lone_surrogate_is_refused_naming_its_key(
    tmp_path: Path, command: tuple[str, ...]
) -> None:
    write(tmp_path, KNOB.format(kernel='"fused \\ud800"', value='"0\\ud800"'))
    result = run_knobs(*command, cwd=tmp_path)
    assert (result.returncode, result.stdout) == (2, "")
    assert result.stderr == (
        f"registry.yaml:8:15: knobs.DEMO_FUSED.gates.kernel: {SURROGATE}\n"
        f"registry.yaml:14:19: profiles.bitwise.env.DEMO_FUSED: {SURROGATE}\n"
    )


def test_a_lone_surrogate_in_a_key_is_refused() -> None:
    with pytest.raises(RegistryError) as caught:
        loads_registry('version: 1\nknobs: {}\nconfig:\n  "a\\udfff": {}\n')
    (line,) = [line for line in str(caught.value).splitlines() if "surrogate" in line]
    assert line == (
        "registry.yaml:4:3: config[\"a\\udfff\"]: the key holds a lone surrogate ('\\udfff'), "
        "half of a UTF-16 pair, which no UTF-8 file or environment can hold; write the "
        "character itself, or escape it as \\U and eight hex digits."
    )


def _documents() -> list[Path]:
    found = [REPO / "registry.yaml", REPO / "examples" / "registry.yaml"]
    found += sorted((REPO / "tests" / "data" / "registries").rglob("*.yaml"))
    return found


@pytest.mark.skipif(len(loaders()) == 1, reason="PyYAML was built without libyaml")
@pytest.mark.parametrize("path", _documents(), ids=lambda p: p.relative_to(REPO).as_posix())
def test_libyaml_and_pyyaml_read_every_registry_alike(
    path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Where libyaml composes a registry, the data, positions and problems are PyYAML's."""
    text = path.read_text(encoding="utf-8")
    results: list[Document | tuple[object, ...]] = []
    for loader in (yaml.SafeLoader, yaml.CSafeLoader):
        monkeypatch.setattr(document, "compose", lambda t, one=loader: compose(t, (one,)))
        try:
            results.append(parse_document(text))
        except RegistryError as exc:
            if loader is yaml.CSafeLoader:
                return  # libyaml words errors its own way; the parse falls back to PyYAML
            results.append(exc.problems)
    own, fast = results
    assert fast == own


def test_a_lone_surrogate_in_the_text_itself_is_refused() -> None:
    """libyaml cannot take such text at all; PyYAML's reader refuses the character."""
    with pytest.raises(RegistryError) as caught:
        loads_registry("version: 1\nknobs: {}\nconfig:\n  a:\n    description: '\ud800'\n")
    assert str(caught.value) == (
        "registry.yaml:5:19: invalid YAML: character '\\ud800' is not allowed in a YAML file."
    )
