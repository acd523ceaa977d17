"""`knobs check` on bad input: a registry that does not load, none at all, bad arguments: exit 2."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.sample_project import check, project


@pytest.mark.parametrize(
    ("registry", "stderr"),
    [
        (
            "version: 1\nknobs:\n  PRIMUS_HC_TRITON:\n    default: 1\n    triage: yes\n",
            "registry.yaml:4:5: knobs.PRIMUS_HC_TRITON.default: expected a string, got the "
            'integer 1; quote it to keep it a string: "1"\n'
            "registry.yaml:5:5: knobs.PRIMUS_HC_TRITON.triage: expected one of 'reproducible', "
            "'breaks-bitwise', 'untriaged', 'exempt', got 'yes'\n",
        ),
        (
            'version: 1\nknobs:\n  PRIMUS_HC_TRITON:\n    default: "1"\n    triage: exempt\n',
            "registry.yaml:3:3: knobs.PRIMUS_HC_TRITON: missing required key 'reason'; an "
            "exempt knob must say why it needs no triage.\n",
        ),
        (
            "version: 1\nscan:\n  paths: [pkg, src]\n",
            "registry.yaml:3:16: scan.paths[1]: 'src' does not exist; scan paths are relative "
            "to the registry's folder (.).\n",
        ),
        ("", "registry.yaml:1:1: the file is empty; a registry starts with `version: 1`.\n"),
    ],
    ids=["wrong-values", "exempt-without-reason", "missing-scope-path", "empty"],
)
def test_bad_registry_exits_2_with_every_problem(
    tmp_path: Path, registry: str, stderr: str
) -> None:
    root = project(tmp_path, registry)
    assert check(root) == (2, "", stderr)


def test_no_registry_exits_2(tmp_path: Path) -> None:
    (tmp_path / ".git").mkdir()
    code, out, err = check(tmp_path)
    assert (code, out) == (2, "")
    assert err == (
        f"{tmp_path.as_posix()}: no registry.yaml here or in a parent folder up to the "
        "repository root; create one with `knobs init`, or name one with --registry PATH.\n"
    )


def test_bad_usage_exits_2(tmp_path: Path) -> None:
    root = project(tmp_path)
    code, out, err = check(root, "--format", "xml")
    assert (code, out) == (2, "")
    assert err.splitlines()[-1] == (
        "Error: Invalid value for '--format' / '-f': 'xml' is not one of "
        "'text', 'json', 'github', 'sarif'."
    )
    assert check(root, "missing")[0] == 2
