"""The table of compare modes: one declaration per mode, read by --compare's parsing, its
help, the error that lists the modes, and the table of docs/triage.md."""

from __future__ import annotations

import pkgutil

from knobregistry.triage import MODES, modes
from knobregistry.triage.modes import Mode, docs_table, modes_help
from tests.conftest import REPO


def test_every_module_with_a_mode_is_in_the_table_in_its_place() -> None:
    assert MODES == ("stdout", "regex:PATTERN", "file:PATH", "tensors:PATH", "checksums:DIR")
    places = [mode.place for mode in modes.MODES]
    assert places == sorted(set(places))
    declared = {info.name for info in pkgutil.iter_modules(modes.__path__)} - {"mode", "output"}
    assert {mode.name for mode in modes.MODES} == declared
    assert all(isinstance(mode, Mode) for mode in modes.MODES)


def test_the_docs_table_of_modes_is_rendered_from_the_table() -> None:
    text = (REPO / "docs" / "triage.md").read_text(encoding="utf-8")
    rendered = "\n".join(docs_table())
    assert f"## Compare modes\n\n{rendered}\n\n" in text, (
        "docs/triage.md's table of compare modes differs from the modes' declarations; "
        f"write it as:\n{rendered}"
    )


def test_the_help_lists_every_mode_with_its_words() -> None:
    assert modes_help() == (
        "stdout, regex:PATTERN (only the stdout lines it matches; rank by rank when they carry "
        "a rank prefix), file:PATH, tensors:PATH (a torch.save file, or a folder of a "
        "distributed run's shards) or checksums:DIR (per-module checksums the script records "
        "with knobregistry.torch into DIR, named in KNOBS_CHECKSUMS), relative to each run's "
        "working directory."
    )
