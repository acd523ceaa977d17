"""The table of compare modes: one declaration per mode, read by --compare's parsing, its
help, the error that lists the modes, and the table of docs/triage.md.

The goldens that list every mode are here (the help; the refusal of --compare, of a journal
and of a registry's record; the docs table), so a new mode is its module and this file: its
tests go here too."""

from __future__ import annotations

import pkgutil
from pathlib import Path

import pytest

from knobregistry.registry import RegistryError, load_registry
from knobregistry.triage import MODES, CompareError, modes, parse_compare
from knobregistry.triage.journal import Journal, JournalError
from knobregistry.triage.modes import Mode, docs_table, modes_help
from tests import test_registry_checks, test_triage_cli
from tests.conftest import write_tree
from tests.docs_pages import docs_page
from tests.test_triage_journal_trust import DAMAGED, journal_text, write


def test_every_module_with_a_mode_is_in_the_table_in_its_place() -> None:
    assert MODES == ("stdout", "regex:PATTERN", "file:PATH", "tensors:PATH", "checksums:DIR")
    places = [mode.place for mode in modes.MODES]
    assert places == sorted(set(places))
    declared = {info.name for info in pkgutil.iter_modules(modes.__path__)} - {"mode", "output"}
    assert {mode.name for mode in modes.MODES} == declared
    assert all(isinstance(mode, Mode) for mode in modes.MODES)


# The table of docs/triage.md's "Compare modes", as the site shows it (one row per mode).
DOCS_TABLE = """\
| mode | compares | first difference shown as |
| --- | --- | --- |
| `stdout` | the whole standard output, byte for byte | the first differing line (or "line endings or the final newline") |
| `regex:PATTERN` | only the stdout lines where PATTERN matches (`re.search`), e.g. `regex:lm loss` to skip timings; rank by rank when every matching line carries a rank prefix (see [Distributed outputs](#distributed-outputs)) | the first differing matching line, with its line number in run 1's output (and its rank) |
| `file:PATH` | the bytes of a file the command writes | the first differing line of a text file; the first differing byte offset and both sizes otherwise |
| `tensors:PATH` | a `torch.save`d tensor, or a dict / list of them (nested), loaded with `torch.load(weights_only=True)` on the CPU, bit for bit | the first differing element: `params.pt['lm_head.weight'][3, 7]: a != b; 17 of 2048 elements differ, max abs diff 5.96e-08 (and 2 more tensors differ)`; or the keys, dtype or shape that differ. A folder: every shard of a distributed checkpoint (see [Distributed outputs](#distributed-outputs)) | the first differing tensor by its key and rank |
| `checksums:DIR` | the per-module checksums each run records with `knobregistry.torch` into DIR (triage sets `KNOBS_CHECKSUMS` to the run's own DIR): a fingerprint of every module's outputs, of the gradients through it and of each parameter's gradient, step by step (see [Where runs diverge](checksums.md)) | the first differing record in execution order: `first difference at step 0, backward, model.layers.3.attn (grad_input[0]); 12 more modules differ after it`; with `--record`, kept as the record's `diverges` and shown by `knobs explain` | the rank with the earliest differing step |
"""  # noqa: E501


def test_the_docs_table_of_modes_is_rendered_from_the_table() -> None:
    assert "\n".join(docs_table()) + "\n" == DOCS_TABLE
    text = docs_page("triage.md")
    assert f"## Compare modes\n\n{DOCS_TABLE}\n" in text


# What --compare answers to a mode it does not know, or one without its argument.
REFUSAL = "write one of stdout, regex:PATTERN, file:PATH, tensors:PATH, checksums:DIR."


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("bytes", f"--compare 'bytes': {REFUSAL}"),
        ("file:", f"--compare 'file:': {REFUSAL}"),
    ],
)
def test_an_unknown_mode_is_refused_with_the_list_of_modes(text: str, message: str) -> None:
    with pytest.raises(CompareError) as caught:
        parse_compare(text)
    assert str(caught.value) == message


def test_the_command_refuses_an_unknown_mode_with_the_list_of_modes(tmp_path: Path) -> None:
    write_tree(tmp_path, {"registry.yaml": test_triage_cli.REGISTRY, "job.py": test_triage_cli.JOB})
    done = test_triage_cli.triage(tmp_path, "--compare", "lines", "--", "true")
    assert done == (2, "", f"knobs triage: error: --compare 'lines': {REFUSAL}\n")


def test_a_journal_of_an_unknown_mode_is_refused_with_the_list_of_modes(tmp_path: Path) -> None:
    records = journal_text(tmp_path)
    records[0]["compare"] = "pixels"
    write(tmp_path, records)
    with pytest.raises(JournalError) as raised:
        Journal.open(tmp_path)
    problem = f"compare: --compare 'pixels': {REFUSAL}"
    assert str(raised.value) == f"{tmp_path}/journal.jsonl:1: {problem}{DAMAGED}"


# A registry's record of a mode it does not know (with other problems of a record): the
# registry's schema lists the modes (tests/test_registry_checks.py holds the other rules).
RECORD = (
    "knobs:\n  DEMO:\n    default_on: true\n    triage: reproducible\n    evidence:\n"
    "      records:\n        - date: 2026-01-01\n          verdict: flaky\n"
    "          runs: 0\n          compare: bytes\n          command: []\n"
    "        - runs: 2\n",
    "registry.yaml:9:11: knobs.DEMO.evidence.records[0].verdict: expected one of "
    "'reproducible', 'breaks-bitwise', 'error', got 'flaky'\n"
    "registry.yaml:10:11: knobs.DEMO.evidence.records[0].runs: must be at least 1, got "
    "the integer 0\n"
    "registry.yaml:11:11: knobs.DEMO.evidence.records[0].compare: 'bytes' is not valid "
    "here: write stdout, regex:PATTERN, file:PATH, tensors:PATH or checksums:DIR\n"
    "registry.yaml:12:11: knobs.DEMO.evidence.records[0].command: must not be empty\n"
    "registry.yaml:13:11: knobs.DEMO.evidence.records[1]: missing required key 'date'; "
    "give the day of the run as YYYY-MM-DD.\n"
    "registry.yaml:13:11: knobs.DEMO.evidence.records[1]: missing required key "
    "'verdict'; give what the run found: reproducible, breaks-bitwise or error.",
)


def test_a_record_of_an_unknown_mode_is_refused_with_the_list_of_modes(tmp_path: Path) -> None:
    text, expected = RECORD
    file = tmp_path / "registry.yaml"
    file.write_text(test_registry_checks.HEAD + text, encoding="utf-8")
    with pytest.raises(RegistryError) as caught:
        load_registry(file, display="registry.yaml")
    assert str(caught.value) == expected


def test_the_help_lists_every_mode_with_its_words() -> None:
    assert modes_help() == (
        "stdout, regex:PATTERN (only the stdout lines it matches; rank by rank when they carry "
        "a rank prefix), file:PATH, tensors:PATH (a torch.save file, or a folder of a "
        "distributed run's shards) or checksums:DIR (per-module checksums the script records "
        "with knobregistry.torch into DIR, named in KNOBS_CHECKSUMS), relative to each run's "
        "working directory."
    )
