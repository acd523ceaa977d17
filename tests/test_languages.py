"""Languages: one ``Language`` enum, one reader per language (prefilter, reader, the "read
in" column's word), and file names a project maps to a language in ``[tool.knobs]`` or the
registry's ``scan.languages``; a language the scanner does not read is refused there."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from knobregistry.registry import load_schema
from scanner import Language, Settings, scan
from scanner.languages import LANGUAGES
from scanner.run.readers import READERS, display, launcher_reader
from scanner.settings import DEFAULT_INCLUDE
from scanner.source.files import LANGUAGES as FILE_NAMES
from scanner.source.files import language_of
from tests.conftest import run_knobs, write_tree
from tests.docs_pages import docs_page

SLURM = "#SBATCH -N 1\nsrun python train.py --fused ${X_FUSED:-1}\n"  # no shebang


def test_every_language_has_one_reader() -> None:
    assert list(READERS) == list(Language)
    assert all(reader.language is language for language, reader in READERS.items())
    words = [display(language) for language in Language]
    assert words == ["py", "sh", "yaml", "docker", "ci"]


def test_the_table_of_languages_gives_the_file_names_and_each_reader() -> None:
    dockerfiles = ("Dockerfile", "Dockerfile.*", "Dockerfile_*", "*.Dockerfile")
    assert list(DEFAULT_INCLUDE) == ["*.py", "*.sh", "*.bash", "*.yaml", "*.yml", *dockerfiles]
    assert [name for name, _ in FILE_NAMES] == ["*.py", "*.pyi", *DEFAULT_INCLUDE[1:]]
    assert [row.language for row in LANGUAGES] == list(Language)
    for row in LANGUAGES:
        assert (row.reader is None) is (row.language is Language.PYTHON)
        assert row.reader is None or callable(launcher_reader(row.reader))


def test_the_schema_offers_exactly_the_languages() -> None:
    scope = load_schema()["$defs"]["scan"]["properties"]["languages"]
    assert scope["additionalProperties"]["enum"] == [language.value for language in Language]


def test_the_docs_say_the_languages_and_the_files_a_scan_reads() -> None:
    """docs/scanning.md, as the site shows it (rendered from the table)."""
    text = docs_page("scanning.md")
    assert "one of\n`python`, `shell`, `yaml`, `dockerfile` or `ci` (another name" in text
    assert (
        "By default the scan reads `*.py`, `*.sh`, `*.bash`, `*.yaml`, `*.yml`, the Dockerfiles"
        " (`Dockerfile`, `Dockerfile.*`, `Dockerfile_*`, `*.Dockerfile`) and any\n" in text
    )


def test_a_language_is_written_as_its_name() -> None:
    assert json.dumps([Language.SHELL]) == '["shell"]'
    assert (str(Language.CI), f"{Language.YAML}") == ("ci", "yaml")


@pytest.mark.parametrize(
    ("name", "rel", "configured", "language"),
    [
        ("a.py", "a.py", (), Language.PYTHON),
        ("run.sh", "run.sh", (), Language.SHELL),
        ("c.yml", "c.yml", (), Language.YAML),
        ("ci.yml", ".github/workflows/ci.yml", (), Language.CI),
        ("Dockerfile.cuda", "Dockerfile.cuda", (), Language.DOCKERFILE),
        ("job.slurm", "job.slurm", (("*.slurm", Language.SHELL),), Language.SHELL),
        ("conf.cfg", "conf.cfg", (("*.cfg", Language.YAML),), Language.YAML),
        ("x.yml", "x.yml", (("x.yml", Language.SHELL),), Language.SHELL),  # the project's first
    ],
)
def test_language_of(
    name: str, rel: str, configured: tuple[tuple[str, Language], ...], language: Language
) -> None:
    assert language_of(name, rel, configured) is language


def test_a_configured_name_is_walked_and_read_as_its_language(tmp_path: Path) -> None:
    root = write_tree(tmp_path, {"jobs/train.slurm": SLURM, "jobs/notes.txt": "${X_NOTE:-1}\n"})
    plain = scan([root], root=root, jobs=1)
    assert (plain.knobs, plain.files_scanned) == ((), 0)
    shell = scan([root], Settings(languages=(("*.slurm", Language.SHELL),)), root=root, jobs=1)
    assert [
        (s.name, s.path, s.line, s.column, s.language) for k in shell.knobs for s in k.sites
    ] == [("X_FUSED", "jobs/train.slurm", 2, 30, Language.SHELL)]


def test_pyproject_languages_reach_the_scan_and_its_read_in_column(tmp_path: Path) -> None:
    root = write_tree(
        tmp_path,
        {
            "pyproject.toml": '[tool.knobs]\nlanguages = {"*.slurm" = "shell"}\n',
            "jobs/train.slurm": SLURM,
        },
    )
    (root / ".git").mkdir()
    found = json.loads(run_knobs("scan", "-f", "json", cwd=root).stdout)
    assert [
        (s["path"], s["line"], s["column"], s["language"]) for s in found["knobs"][0]["sites"]
    ] == [("jobs/train.slurm", 2, 30, "shell")]
    table = run_knobs("scan", cwd=root).stdout
    assert table.splitlines()[2].split()[:7] == [
        "X_FUSED",
        "'1'",
        "yes",
        "enable",
        "unknown",
        "'0'",
        "sh",
    ]


def test_an_unknown_language_in_pyproject_is_refused(tmp_path: Path) -> None:
    root = write_tree(
        tmp_path, {"pyproject.toml": '[tool.knobs]\nlanguages = {"*.zsh" = "zsh"}\n', "a.py": ""}
    )
    (root / ".git").mkdir()
    done = run_knobs("scan", cwd=root)
    assert (done.returncode, done.stdout) == (2, "")
    assert done.stderr == (
        f"knobs scan: error: {(root / 'pyproject.toml').as_posix()}: [tool.knobs] languages: "
        "'zsh' (for '*.zsh') is not a language knobs reads; use one of python, shell, yaml, "
        "dockerfile, ci.\n"
    )


def test_an_unknown_language_in_the_registry_is_refused(tmp_path: Path) -> None:
    root = write_tree(
        tmp_path,
        {
            "registry.yaml": "version: 1\nscan:\n  paths: [src]\n  languages: {'*.zsh': zsh}\n",
            "src/a.py": "",
        },
    )
    done = run_knobs("check", cwd=root)
    assert (done.returncode, done.stdout) == (2, "")
    assert done.stderr == (
        "registry.yaml:4:15: scan.languages[\"*.zsh\"]: expected one of 'python', 'shell', "
        "'yaml', 'dockerfile', 'ci', got 'zsh'\n"
    )
