"""`knobs docs`: blocks rendered between markers, idempotent, and checked by `knobs check`."""

from __future__ import annotations

import textwrap
from pathlib import Path

import pytest

from knobregistry.docsgen import parse, refresh
from knobregistry.registry import load_registry
from tests.conftest import run_knobs
from tests.sample_project import IN_SYNC, REGISTRY, edit, project

EXTRA = """
profiles:
  bitwise:
    description: Bit for bit.
    kind: bitwise
    env:
      NCCL_ALGO: Ring
    select:
      - default_on: true
        triage_not: reproducible
        set: "off"
external:
  NCCL_ALGO:
    library: RCCL / NCCL
    description: Selects the collective algorithm; "Ring" is deterministic.
    cost: Forgoes faster algorithms.
"""

KNOBS_TABLE = """\
| knob | gates | default | triage | cost when off |
| --- | --- | --- | --- | --- |
| `PRIMUS_HC_TRITON` | hyper-connection glue (Triton); forward and backward | `"1"` (on) | **breaks-bitwise** (backward) | — |
| `PRIMUS_ROPE_TRITON` | — | `"1"` (on) | reproducible | — |
| `PRIMUS_FP8` | — | `"0"` (off) | untriaged | — |
| `PRIMUS_BLOCK` | — | `"64"` | exempt: A block size, not a kernel switch. | — |
"""  # noqa: E501

PAGE = f"""\
# Environment knobs

<!-- knobs:registry ../registry.yaml -->

Generated from `registry.yaml` by `knobs docs --write`: the blocks between `knobs:begin`
and `knobs:end` comments are rewritten from the registry, and `knobs check` fails
when they differ from it. Text around them is yours.

## Knobs

<!-- knobs:begin knobs -->

{KNOBS_TABLE}
<!-- knobs:end knobs -->

## External variables

<!-- knobs:begin external -->

| variable | read by | what it does | cost |
| --- | --- | --- | --- |
| `NCCL_ALGO` | RCCL / NCCL | Selects the collective algorithm; "Ring" is deterministic. | Forgoes faster algorithms. |

<!-- knobs:end external -->

## Profiles

### bitwise

<!-- knobs:begin profile:bitwise -->

`bitwise` (kind bitwise): Bit for bit.

Environment (`knobs export --profile bitwise`):

```sh
export NCCL_ALGO='Ring'
export PRIMUS_HC_TRITON='0'
```

What it costs:

- `NCCL_ALGO=Ring`: Forgoes faster algorithms.

<!-- knobs:end profile:bitwise -->
"""  # noqa: E501

DRIFT = (
    "docs/knobs.md:16:1: KNB204 error: The generated block 'knobs' differs from what registry.yaml "
    "renders: it was edited by hand, or the registry changed since it was written.\n"
    "    Regenerate it (edit the registry, not the block): knobs docs --write docs/knobs.md\n"
)


def docs_project(tmp_path: Path) -> Path:
    root = project(tmp_path, textwrap.dedent(REGISTRY) + EXTRA)
    (root / "docs").mkdir()
    return root


def docs(cwd: Path, *args: str) -> tuple[int, str, str]:
    done = run_knobs("docs", *args, cwd=cwd)
    return done.returncode, done.stdout, done.stderr


def written(tmp_path: Path) -> Path:
    root = docs_project(tmp_path)
    assert docs(root, "--write", "docs/knobs.md") == (
        0,
        "Wrote docs/knobs.md: a new page with 3 blocks from registry.yaml.\n",
        "",
    )
    return root


def test_write_renders_a_new_page(tmp_path: Path) -> None:
    root = written(tmp_path)
    assert (root / "docs/knobs.md").read_text(encoding="utf-8") == PAGE


def test_without_write_the_page_goes_to_stdout(tmp_path: Path) -> None:
    root = docs_project(tmp_path)
    code, out, _ = docs(root)
    assert code == 0
    assert out == PAGE.replace("<!-- knobs:registry ../registry.yaml -->\n\n", "")


def test_write_is_idempotent(tmp_path: Path) -> None:
    root = written(tmp_path)
    page = root / "docs/knobs.md"
    before = page.stat().st_mtime_ns
    assert docs(root, "--write", "docs/knobs.md") == (
        0,
        "docs/knobs.md is up to date: 3 blocks from registry.yaml.\n",
        "",
    )
    assert page.read_text(encoding="utf-8") == PAGE
    assert page.stat().st_mtime_ns == before  # not even rewritten
    assert run_knobs("check", cwd=root).stdout == IN_SYNC


def test_a_hand_edited_block_fails_knobs_check(tmp_path: Path) -> None:
    root = written(tmp_path)
    edit(root / "docs/knobs.md", "| reproducible |", "| breaks-bitwise |")
    done = run_knobs("check", cwd=root)
    assert (done.returncode, done.stdout) == (
        1,
        DRIFT + "\nFound 1 error: 4 knobs in 3 files checked against registry.yaml (policy all).\n",
    )
    assert docs(root, "--check") == (
        1,
        DRIFT + "\nFound 1 error: 1 doc checked against registry.yaml.\n",
        "",
    )
    assert docs(root, "--write", "docs/knobs.md") == (
        0,
        "Updated docs/knobs.md: 1 of 3 blocks from registry.yaml rewritten.\n",
        "",
    )
    assert run_knobs("check", cwd=root).returncode == 0


def test_a_registry_change_makes_the_doc_stale(tmp_path: Path) -> None:
    root = written(tmp_path)
    edit(root / "registry.yaml", "    triage: untriaged\n", "    triage: reproducible\n")
    code, out, _ = docs(root, "--check", "docs/knobs.md")
    assert code == 1
    assert out.startswith("docs/knobs.md:17:1: KNB204 error: The generated block 'knobs' differs")


def test_text_around_blocks_is_kept_and_the_registry_marker_added(tmp_path: Path) -> None:
    root = docs_project(tmp_path)
    page = root / "docs/guide.md"
    page.write_text(
        "# Our knobs\n\nProse before.\n\n<!-- knobs:begin knobs -->\nold\n<!-- knobs:end knobs -->"
        "\n\nProse after.\n```md\n<!-- knobs:begin external -->\n```\n",
        encoding="utf-8",
    )
    assert docs(root, "--write", "docs/guide.md") == (
        0,
        "Updated docs/guide.md: 1 of 1 block from registry.yaml rewritten.\n",
        "",
    )
    assert page.read_text(encoding="utf-8") == (
        "# Our knobs\n\nProse before.\n\n<!-- knobs:registry ../registry.yaml -->\n\n"
        f"<!-- knobs:begin knobs -->\n\n{KNOBS_TABLE}\n<!-- knobs:end knobs -->\n\n"
        "Prose after.\n```md\n<!-- knobs:begin external -->\n```\n"
    )


def test_a_file_without_markers_gets_the_blocks_appended(tmp_path: Path) -> None:
    root = docs_project(tmp_path)
    page = root / "docs/guide.md"
    page.write_text("# Our knobs\n\nSome prose.\n", encoding="utf-8")
    assert docs(root, "--write", "docs/guide.md") == (
        0,
        "Updated docs/guide.md: appended 3 blocks from registry.yaml.\n",
        "",
    )
    text = page.read_text(encoding="utf-8")
    assert text.startswith(
        "# Our knobs\n\nSome prose.\n\n<!-- knobs:registry ../registry.yaml -->\n\n## Knobs\n"
    )
    assert text.endswith("<!-- knobs:end profile:bitwise -->\n")
    assert docs(root, "--check")[0] == 0


def test_appending_counts_only_the_blocks_it_wrote(tmp_path: Path) -> None:
    # A marker quoted in a fenced example is not a block, before or after the append.
    root = docs_project(tmp_path)
    page = root / "docs/guide.md"
    page.write_text("# Our knobs\n\n```md\n<!-- knobs:begin knobs -->\n```\n", encoding="utf-8")
    assert docs(root, "--write", "docs/guide.md") == (
        0,
        "Updated docs/guide.md: appended 3 blocks from registry.yaml.\n",
        "",
    )


@pytest.mark.parametrize(
    ("page", "line", "problem"),
    [
        ("<!-- knobs:begin knobs -->\n", 1, "knobs:begin knobs has no matching "
         "`<!-- knobs:end knobs -->` after it."),
        ("<!-- knobs:end knobs -->\n", 1, "knobs:end knobs closes no knobs:begin."),
        ("x\n<!-- knobs:begin table -->\n<!-- knobs:end table -->\n", 2,
         "knobs:begin table names no block; the blocks are knobs, external and profile:NAME."),
        ("<!-- knobs:begin profile:fast -->\n<!-- knobs:end profile:fast -->\n", 1,
         "knobs:begin profile:fast names profile 'fast', which registry.yaml does not define."),
    ],
)  # fmt: skip
def test_broken_markers_are_reported(tmp_path: Path, page: str, line: int, problem: str) -> None:
    root = docs_project(tmp_path)
    (root / "docs/bad.md").write_text(page, encoding="utf-8")
    expected = (
        f"docs/bad.md:{line}:1: KNB205 error: The markers of this doc cannot be used: {problem}\n"
        "    Fix the marker comments (`knobs rule KNB205`), then: knobs docs --write "
        "docs/bad.md\n"
    )
    done = run_knobs("check", cwd=root)
    assert (done.returncode, done.stdout.split("\n\n")[0] + "\n") == (1, expected)
    code, out, err = docs(root, "--write", "docs/bad.md")
    assert (code, out) == (2, "")
    assert (
        err == expected + "knobs docs: error: docs/bad.md was not written: fix its markers first.\n"
    )


def test_a_doc_of_another_registry_is_not_checked(tmp_path: Path) -> None:
    root = written(tmp_path)
    other = root / "other"
    project(other)
    (other / "docs").mkdir()
    assert docs(other, "--write", "docs/knobs.md")[0] == 0
    edit(other / "docs/knobs.md", "| reproducible |", "| breaks-bitwise |")
    assert run_knobs("check", cwd=root).stdout == IN_SYNC
    assert run_knobs("check", cwd=other).returncode == 1


def test_a_registry_marker_naming_no_file(tmp_path: Path) -> None:
    root = written(tmp_path)
    edit(root / "docs/knobs.md", "../registry.yaml", "../gone.yaml")
    done = run_knobs("check", cwd=root)
    assert done.returncode == 1
    assert done.stdout.startswith(
        "docs/knobs.md:3:1: KNB205 error: The markers of this doc cannot be used: knobs:registry "
        "names '../gone.yaml', which is not a file.\n"
    )
    code, _, err = docs(root, "--write", "docs/knobs.md")
    assert (code, err) == (
        2,
        "knobs docs: error: docs/knobs.md: knobs:registry names '../gone.yaml', which is not "
        "a file.\n",
    )


def test_check_named_files_without_blocks(tmp_path: Path) -> None:
    root = docs_project(tmp_path)
    (root / "docs/plain.md").write_text("# Plain\n", encoding="utf-8")
    code, out, _ = docs(root, "--check", "docs/plain.md")
    assert code == 1
    assert out.startswith(
        "docs/plain.md:1:1: KNB205 error: The markers of this doc cannot be used: this doc has no "
        "knobs:begin block to check.\n"
    )


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (("--write", "a.md", "--check"), "use --write FILE or --check, not both."),
        (("a.md",), "FILE arguments go with --check; to write a file, use --write FILE."),
        (("--write", "nowhere/a.md"), "cannot write nowhere/a.md: the folder nowhere does not "
         "exist."),
    ],
)  # fmt: skip
def test_usage_errors(tmp_path: Path, args: tuple[str, ...], message: str) -> None:
    assert docs(docs_project(tmp_path), *args) == (2, "", f"knobs docs: error: {message}\n")


def test_refresh_is_a_pure_function_of_text_and_registry(tmp_path: Path) -> None:
    root = written(tmp_path)
    registry = load_registry(root / "registry.yaml")
    text = (root / "docs/knobs.md").read_text(encoding="utf-8")
    again = refresh(text, registry, "../registry.yaml")
    assert (again.text, again.stale, again.problems, again.blocks) == (text, (), (), 3)
    assert [b.name for b in parse(text).blocks] == ["knobs", "external", "profile:bitwise"]


def test_a_value_with_backquotes_gets_a_longer_fence(tmp_path: Path) -> None:
    root = docs_project(tmp_path)
    edit(root / "registry.yaml", "NCCL_ALGO: Ring", "NCCL_ALGO: '```'")
    code, out, _ = docs(root)
    assert code == 0
    assert "\n````sh\nexport NCCL_ALGO='```'\nexport PRIMUS_HC_TRITON='0'\n````\n" in out
