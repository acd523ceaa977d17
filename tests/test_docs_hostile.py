"""The contract of `knobs docs` with hostile text: in every field of the registry it renders,
and in the user's own text around the blocks.

Newlines (LF, CRLF, CR), form feed, vertical tab, NEL, U+2028, U+2029, NUL, ANSI and bidi
controls, marker text and fences in descriptions, costs, reasons, values and config values:
the page is read back with the marker parser (docsgen.markers.parse), which finds exactly the
blocks written; a second `--write` changes nothing, and `--check` passes. The user's text
outside the blocks is kept byte for byte, line endings and line separators included.
"""

from __future__ import annotations

from pathlib import Path

import yaml

from knobregistry.docsgen import parse
from tests.conftest import run_knobs

MARKERS = "\n<!-- knobs:end profile:p -->\n<!-- knobs:begin knobs -->\n<!-- knobs:end knobs -->\n"
FENCES = "\n```\n~~~\n````\n"
BREAKS = "a\nb\r\nc\rd\x0ce\x0bf\x85g\u2028h\u2029i"
CONTROLS = "\x1b[31mred\x1b[0m \x07 \u202eevil\t\x7f | pipe"
VALUE = f"{BREAKS}{MARKERS}{FENCES}{CONTROLS}'quote\" $(touch ran) `touch ran`"
TEXT = VALUE + "\x00nul"
BLOCKS = ["knobs", "external", "profile:p"]


def _registry(value: str = VALUE, text: str = TEXT) -> str:
    document = {
        "version": 1,
        "scan": {"paths": ["src"]},
        "knobs": {
            "K_FUSED": {
                "gates": {"kernel": text},
                "default": "1",
                "default_on": True,
                "role": "kernel",
                "triage": "breaks-bitwise",
                "cost": text,
            },
            "K_SIZE": {"default": "64", "default_on": None, "triage": "exempt", "reason": text},
        },
        "external": {"V_TEXT": {"library": text, "description": text, "cost": text}},
        "config": {"deterministic_text": {"backend": "megatron", "description": text}},
        "profiles": {
            "p": {
                "kind": "bitwise",
                "description": text,
                "env": {"K_FUSED": "0", "V_TEXT": value},
                "config": {"deterministic_text": value},
            }
        },
    }
    return yaml.safe_dump(document, allow_unicode=False, sort_keys=False, width=10_000)


def _project(root: Path, doc: bytes | None = None) -> Path:
    (root / "registry.yaml").write_text(_registry(), encoding="utf-8")
    (root / "src").mkdir()
    code = (
        'import os\nA = os.environ.get("K_FUSED", "1") != "0"\nB = os.environ.get("K_SIZE", "64")\n'
    )
    (root / "src" / "model.py").write_text(code, encoding="utf-8")
    if doc is not None:
        (root / "knobs.md").write_bytes(doc)
    return root


def _write(root: Path) -> str:
    done = run_knobs("docs", "--write", "knobs.md", cwd=root)
    assert done.returncode == 0, done.stdout + done.stderr
    return done.stdout


def _check(root: Path) -> None:
    done = run_knobs("docs", "--check", "knobs.md", cwd=root)
    assert (done.returncode, done.stdout) == (
        0,
        "No problems: 1 doc checked against registry.yaml.\n",
    )


def test_hostile_text_in_every_field_gives_the_blocks_once_and_stays_up_to_date(
    tmp_path: Path,
) -> None:
    """Row 6 of issue 41: a value holding marker text doubled the blocks on every write, and
    `docs --check` could never pass again."""
    root = _project(tmp_path)
    _write(root)
    first = (root / "knobs.md").read_bytes()
    assert [b.name for b in parse(first.decode("utf-8")).blocks] == BLOCKS
    assert not parse(first.decode("utf-8")).problems
    assert _write(root) == "knobs.md is up to date: 3 blocks from registry.yaml.\n"
    assert (root / "knobs.md").read_bytes() == first
    _check(root)
    assert not list(root.glob("ran"))


def test_every_generated_line_is_one_printable_line(tmp_path: Path) -> None:
    """What the blocks hold is escaped for Markdown: no raw control character, no line
    break inside a line, whatever the registry's text holds."""
    root = _project(tmp_path)
    _write(root)
    data = (root / "knobs.md").read_bytes().decode("utf-8")
    assert "\r" not in data
    for line in data.split("\n"):
        assert line.isprintable(), repr(line)


USER_TEXT = (
    b"# My knobs\r\n\r\nLine\xe2\x80\xa8separator, paragraph\xe2\x80\xa9separator, NEL\xc2\x85"
    b"here, form\x0cfeed, tab\t, lone CR\r inside.\r\n\r\n<!-- knobs:begin knobs -->\r\n"
    b"old\r\n<!-- knobs:end knobs -->\r\n\r\nAfter\xe2\x80\xa8the block.\r\n"
)


def test_the_users_text_around_the_blocks_is_kept_byte_for_byte(tmp_path: Path) -> None:
    """Row 7 of issue 41: U+2028, U+2029, form feed, NEL and CRLF in the user's own text were
    rewritten as `\\n`."""
    root = _project(tmp_path, USER_TEXT)
    (root / "registry.yaml").write_text(_registry("Ring", "Plain."), encoding="utf-8")
    assert _write(root).startswith("Updated knobs.md: 1 of 1 block from registry.yaml")
    data = (root / "knobs.md").read_bytes()
    before, _, rest = data.partition(b"<!-- knobs:begin knobs -->\r\n")
    block, _, after = rest.partition(b"<!-- knobs:end knobs -->\r\n")
    mine = USER_TEXT.partition(b"<!-- knobs:begin")[0]
    assert before == mine + b"<!-- knobs:registry registry.yaml -->\r\n\r\n"
    assert after == b"\r\nAfter\xe2\x80\xa8the block.\r\n"
    assert block.startswith(b"\r\n| knob | gates |") and block.endswith(b" |\r\n\r\n")
    assert b"\n" not in block.replace(b"\r\n", b"")  # the doc's own line ending, throughout
    assert _write(root) == "knobs.md is up to date: 1 block from registry.yaml.\n"
    _check(root)


def test_a_marker_inside_fenced_code_in_a_block_is_code() -> None:
    text = (
        "<!-- knobs:begin knobs -->\n````sh\n<!-- knobs:end knobs -->\n<!-- knobs:begin external"
        " -->\n````\n<!-- knobs:end knobs -->\n"
    )
    parsed = parse(text)
    assert [(b.name, b.begin, b.end) for b in parsed.blocks] == [("knobs", 0, 5)]
    assert parsed.problems == ()


def test_a_fence_left_open_over_a_marker_is_a_problem(tmp_path: Path) -> None:
    doc = b"# Doc\n\n```sh\ncode\n\n<!-- knobs:begin knobs -->\n\n<!-- knobs:end knobs -->\n"
    root = _project(tmp_path, doc)
    done = run_knobs("docs", "--write", "knobs.md", cwd=root)
    assert (done.returncode, done.stdout) == (2, "")
    assert done.stderr == (
        "knobs.md:3:1: KNB205 error: The markers of this doc cannot be used: the fenced code "
        "opened on "
        "this line is never closed, so the marker on line 6 is read as code; close the fence.\n"
        "    Fix the marker comments (`knobs rule KNB205`), then: knobs docs --write knobs.md\n"
        "knobs docs: error: knobs.md was not written: fix its markers first.\n"
    )
    assert (root / "knobs.md").read_bytes() == doc


def test_blocks_are_not_appended_inside_a_fence_left_open(tmp_path: Path) -> None:
    doc = b"# Doc\n\n~~~\ncode, never closed\n"
    root = _project(tmp_path, doc)
    done = run_knobs("docs", "--write", "knobs.md", cwd=root)
    assert (done.returncode, done.stdout) == (2, "")
    assert done.stderr == (
        "knobs.md:3:1: KNB205 error: The markers of this doc cannot be used: the fenced code "
        "opened on "
        "this line is never closed, so the blocks appended after it would be read as code; "
        "close the fence.\n"
        "    Fix the marker comments (`knobs rule KNB205`), then: knobs docs --write knobs.md\n"
        "knobs docs: error: knobs.md was not written: fix its markers first.\n"
    )
    assert (root / "knobs.md").read_bytes() == doc
