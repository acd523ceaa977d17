"""Pruning the scan cache removes only what a scan made: the folders of other versions of the
scanner, each marked as knobs' own when made, and only the entries it wrote there (row 3 of
issue 41). A folder under `DIR/v1/` that knobs did not make is never touched, however old."""

from __future__ import annotations

import os
import time
from pathlib import Path

import scanner
from scanner.run.cache import KEEP_UNUSED_DAYS, USED, Cache, prune, scanner_fingerprint

OLD = time.time() - (KEEP_UNUSED_DAYS + 1) * 24 * 3600
OTHER = "0123456789abcdef0123456789abcdef"  # the fingerprint of another version


def _age(path: Path) -> None:
    for folder, dirs, files in os.walk(path):
        for name in (*dirs, *files):
            os.utime(Path(folder, name), (OLD, OLD), follow_symlinks=False)
    os.utime(path, (OLD, OLD))


def _made_by_another_version(cache: Path) -> Path:
    """A cache folder of another scanner version, as that version made it."""
    store = Cache(cache)
    store.folder = cache / "v1" / OTHER
    store.put("ab" + "0" * 62, {"x": 1})
    prune_marker = store.folder / USED
    prune_marker.write_text(f"knobs scan cache {OTHER}\n", encoding="utf-8")
    _age(store.folder)
    return store.folder


def test_the_folders_of_other_versions_go_after_two_weeks(tmp_path: Path) -> None:
    other = _made_by_another_version(tmp_path)
    prune(tmp_path)
    assert not other.exists()
    current = tmp_path / "v1" / scanner_fingerprint()
    assert (current / USED).read_text(encoding="utf-8") == (
        f"knobs scan cache {scanner_fingerprint()}\n"
    )


def test_a_folder_knobs_did_not_make_is_never_deleted(tmp_path: Path) -> None:
    """`knobs scan --cache-dir ~` must not delete the user's own `~/v1/photos/`."""
    mine = tmp_path / "v1" / "photos"
    (mine / "2019").mkdir(parents=True)
    (mine / "2019" / "beach.jpg").write_bytes(b"\xff\xd8")
    (mine / USED).write_text("", encoding="utf-8")  # even one with a file of that name
    _age(mine)
    hashed = tmp_path / "v1" / OTHER  # named like a version's folder, with no marker
    (hashed / "ab").mkdir(parents=True)
    (hashed / "ab" / ("ab" + "1" * 62 + ".json")).write_text("{}", encoding="utf-8")
    _age(hashed)
    prune(tmp_path)
    assert (mine / "2019" / "beach.jpg").read_bytes() == b"\xff\xd8"
    assert (hashed / "ab" / ("ab" + "1" * 62 + ".json")).exists()


def test_in_a_folder_of_knobs_only_its_own_entries_go(tmp_path: Path) -> None:
    other = _made_by_another_version(tmp_path)
    (other / "notes.txt").write_text("mine\n", encoding="utf-8")
    (other / "ab" / "notes.txt").write_text("mine too\n", encoding="utf-8")
    _age(other)
    prune(tmp_path)
    left = sorted(p.relative_to(other).as_posix() for p in other.rglob("*"))
    assert left == sorted([USED, "ab", "ab/notes.txt", "notes.txt"])


def test_links_are_never_followed(tmp_path: Path) -> None:
    elsewhere = _made_by_another_version(tmp_path / "elsewhere")
    cache = tmp_path / "cache"
    (cache / "v1").mkdir(parents=True)
    (cache / "v1" / OTHER).symlink_to(elsewhere)
    linked_root = tmp_path / "linked"
    linked_root.mkdir()
    (linked_root / "v1").symlink_to(elsewhere.parent)
    prune(cache)
    prune(linked_root)
    assert (elsewhere / "ab" / ("ab" + "0" * 62 + ".json")).exists()


def test_a_scan_prunes_through_the_same_rule(tmp_path: Path) -> None:
    mine = tmp_path / "cache" / "v1" / "mine"
    mine.mkdir(parents=True)
    _age(mine)
    (tmp_path / "src").mkdir()
    (tmp_path / "src" / "m.py").write_text('import os\nos.environ.get("A")\n', encoding="utf-8")
    scanner.scan([tmp_path / "src"], root=tmp_path, cache_dir=tmp_path / "cache")
    assert mine.is_dir()
