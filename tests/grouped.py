"""A tree scanned whole and with every file cut into groups as small as they can be
(``scanner.source.split``), for the tests of huge files (issue 18)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from scanner import ScanResult, scan
from scanner.run import groups as scanner_groups
from scanner.run.work import analyse
from scanner.source import split as scanner_split


def whole_and_grouped(
    root: Path,
    monkeypatch: pytest.MonkeyPatch,
    grouped: list[bool] | None = None,
    analysed: list[str] | None = None,
) -> tuple[ScanResult, ScanResult]:
    """The whole-file scan of ``root``, and the scan with every file cut into groups as
    small as they can be, parsed a block at a time. Whether each file was cut goes to
    ``grouped``; the text of each group analysed (not taken from a template) to
    ``analysed``."""
    with monkeypatch.context() as patch:
        patch.setattr(scanner_split, "SPLIT_BYTES", 1 << 62)
        patch.setattr(scanner_split, "MANY_READS", 1 << 62)
        whole = scan([root], root=root, jobs=1)
    real_groups = scanner_groups.analyse_groups

    def counted(*args: Any, **kwargs: Any) -> Any:
        found = real_groups(*args, **kwargs)
        if grouped is not None:
            grouped.append(found is not None)
        return found

    def seen(task: Any, data: bytes, text: str, *args: Any, **kwargs: Any) -> Any:
        if analysed is not None:
            analysed.append(text)
        return analyse(task, data, text, *args, **kwargs)

    with monkeypatch.context() as patch:
        patch.setattr(scanner_split, "SPLIT_BYTES", 0)
        patch.setattr(scanner_split, "CHUNK_LINES", 1)
        patch.setattr(scanner_split, "PIECE_LINES", 1)  # each block looked up (skeletons)
        patch.setattr(scanner_groups, "analyse_groups", counted)
        patch.setattr(scanner_groups, "analyse", seen)
        cut = scan([root], root=root, jobs=1)
    return whole, cut
