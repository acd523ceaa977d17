"""Trainer-config keys against torchtitan's own job-config dataclasses (KNB107 / KNB108).

torchtitan is an optional extra; a small torchtitan package written to disk
stands in for it, imported in a subprocess as the real one would be.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from importlib import metadata
from pathlib import Path

import pytest

from knobregistry.check.rules.torchtitan_keys import TORCHTITAN, torchtitan_key_diagnostics
from knobregistry.profiles.torchtitan import TorchTitanFields, TorchTitanMissing
from knobregistry.registry import load_registry
from tests.conftest import REPO, write_tree

FAKE_TORCHTITAN = {
    "torchtitan/__init__.py": "",
    "torchtitan/config/__init__.py": "",
    "torchtitan/config/job_config.py": """
        from __future__ import annotations

        from dataclasses import dataclass, field


        @dataclass
        class Debug:
            seed: int | None = None
            deterministic: bool = False


        @dataclass
        class Compile:
            enable: bool = False


        @dataclass
        class Tokenizer:
            name: str = ""


        @dataclass
        class HFTokenizer(Tokenizer):
            path: str = ""


        @dataclass
        class JobConfig:
            debug: Debug = field(default_factory=Debug)
            compile: Compile = field(default_factory=Compile)
            tokenizer: Tokenizer = field(default_factory=HFTokenizer)
            dump_folder: str = "./outputs"
    """,
}

REGISTRY = """
version: 1
config:
  debug.seed:
    backend: torchtitan
    description: Seed.
  debug.determinstic:
    backend: torchtitan
    description: A typo.
  tokenizer.path:
    backend: torchtitan
    description: Only the default factory's subclass has it.
  primus_turbo.enable_primus_turbo:
    backend: primus
    description: Not torchtitan's.
"""

SCRIPT = """
import json, sys
from knobregistry.profiles.torchtitan import torchtitan_fields
from knobregistry.check.rules.torchtitan_keys import torchtitan_key_diagnostics
from knobregistry.registry import load_registry
fields = torchtitan_fields()
found = torchtitan_key_diagnostics(load_registry(sys.argv[1]), "registry.yaml")
print(json.dumps({
    "fields": [fields.version, fields.root, sorted(fields.keys)],
    "found": [[d.code, d.line, d.column, d.message, d.fix] for d in found],
}))
"""


def _run(script: str, tmp_path: Path, *args: str) -> subprocess.CompletedProcess[str]:
    path = os.pathsep.join([str(tmp_path / "site"), str(REPO)])
    return subprocess.run(
        [sys.executable, "-c", script, *args],
        env={**os.environ, "PYTHONPATH": path},
        capture_output=True,
        text=True,
        cwd=tmp_path,
    )


def test_keys_against_a_torchtitan_on_disk(tmp_path: Path) -> None:
    write_tree(tmp_path / "site", FAKE_TORCHTITAN)
    write_tree(tmp_path, {"registry.yaml": REGISTRY})
    result = _run(SCRIPT, tmp_path, "registry.yaml")
    assert (result.returncode, result.stderr) == (0, "")
    report = json.loads(result.stdout)
    version = _installed_version()  # of the distribution, where the extra is installed
    assert report["fields"] == [
        version,
        "torchtitan.config.job_config.JobConfig",
        [
            "compile",
            "compile.enable",
            "debug",
            "debug.deterministic",
            "debug.seed",
            "dump_folder",
            "tokenizer",
            "tokenizer.name",
            "tokenizer.path",
        ],
    ]
    assert report["found"] == [
        [
            "KNB107",
            6,
            3,
            "config key 'debug.determinstic' is declared `backend: torchtitan`, but torchtitan "
            f"{version} has no such field in torchtitan.config.job_config.JobConfig (sections: "
            "compile, debug, tokenizer).",
            "rename it to 'debug.deterministic'; or if Primus adds it, write `backend: primus` "
            "under config.debug.determinstic.",
        ]
    ]


def _installed_version() -> str:
    try:
        return metadata.version("torchtitan")
    except metadata.PackageNotFoundError:
        return "unknown"


def test_a_torchtitan_that_fails_to_import_is_said_so(tmp_path: Path) -> None:
    write_tree(tmp_path / "site", {"torchtitan/__init__.py": "raise ImportError('no CUDA')\n"})
    script = "from knobregistry.profiles.torchtitan import torchtitan_fields as f; print(f())"
    result = _run(script, tmp_path)
    assert result.returncode == 0
    assert result.stdout.startswith(
        "TorchTitanMissing(reason=\"torchtitan's job config could not be read "
        "(torchtitan.trainer.Trainer.Config: ImportError: no CUDA; "
    )


def test_without_torchtitan_the_keys_are_noted_not_checked(tmp_path: Path) -> None:
    write_tree(tmp_path, {"registry.yaml": REGISTRY})
    registry = load_registry(tmp_path / "registry.yaml")

    def missing() -> TorchTitanMissing:
        return TorchTitanMissing("torchtitan is not installed")

    (note,) = torchtitan_key_diagnostics(registry, "registry.yaml", missing)
    assert (note.code, note.severity.value, note.line, note.column) == ("KNB108", "note", 3, 3)
    assert note.message == (
        "torchtitan is not installed, so 3 config keys declared `backend: torchtitan` "
        "(debug.seed, debug.determinstic, tokenizer.path) were not checked against its job "
        "config."
    )
    assert note.fix == "pip install torchtitan"


def test_no_torchtitan_keys_imports_nothing(tmp_path: Path) -> None:
    write_tree(tmp_path, {"registry.yaml": "version: 1\n"})

    def never() -> TorchTitanFields:
        raise AssertionError("looked up without a key to check")

    assert torchtitan_key_diagnostics(load_registry(tmp_path / "registry.yaml"), "r", never) == []


def test_rules_read_as_sentences() -> None:
    rules = (TORCHTITAN.unknown, TORCHTITAN.not_checked)
    assert [r.code for r in rules] == ["KNB107", "KNB108"]
    for rule in rules:
        assert rule.help.endswith(".") and rule.title.endswith(".")


def test_the_repository_keys_against_the_real_torchtitan() -> None:
    """Runs where the `torchtitan` extra is installed (torchtitan 0.3 needs Python 3.11)."""
    pytest.importorskip("torchtitan")
    registry = load_registry(REPO / "registry.yaml")
    assert torchtitan_key_diagnostics(registry, "registry.yaml") == []
