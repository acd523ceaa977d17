"""`tensors:FOLDER`: a distributed run's checkpoint, compared shard by shard, bit for bit.

Two layouts: a `torch.distributed.checkpoint` folder (a `.metadata` file and the
`__RANK_N.distcp` files each rank wrote), or a folder of per-rank `torch.save`
files (`rank_0.pt`, `rank_1.pt`: the rank is the last number in the name). Every
shard is compared, one pair at a time (memory: two shards), and the first
differing tensor is named by its fully qualified key and the rank that wrote it.

torch is imported only here (and in tensors.py), when a folder is compared.
"""

from __future__ import annotations

import io
import re
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from knobregistry._io.files import FileError, leads_inside, read_range
from knobregistry.triage.tensors import (
    TensorFileError,
    load_tensors,
    names_difference,
    tensors_difference,
    value_difference,
)

DCP_METADATA = ".metadata"
PT_SUFFIXES = (".pt", ".pth")
_LAST_NUMBER = re.compile(r"(\d+)(?!.*\d)")
_DISTCP = re.compile(r"^__(\d+)_\d+")


def check_folder(folder: Path, shown: str) -> None:
    """Raise TensorFileError unless ``folder`` is a checkpoint this module compares."""
    if (folder / DCP_METADATA).is_file() or _pt_files(folder, shown):
        return
    raise TensorFileError(
        f"{shown} is a folder with neither a torch.distributed.checkpoint ({DCP_METADATA}) "
        "nor .pt files in it"
    )


def folder_difference(first: Path, other: Path, shown: str) -> str | None:
    """How the checkpoint folder ``other`` differs from ``first``; None when every shard
    matches bit for bit. Raises TensorFileError for a folder that cannot be read."""
    if (first / DCP_METADATA).is_file():
        found = list(_dcp_differences(first, other, shown))
    else:
        found = list(_pt_differences(first, other, shown))
    if not found:
        return None
    more = len(found) - 1
    tail = f" (and {more} more shard{'s differ' if more > 1 else ' differs'})" if more else ""
    return found[0] + tail


def _rank(name: str, pattern: re.Pattern[str]) -> int | None:
    match = pattern.search(name)
    return int(match.group(1)) if match else None


def _pt_files(folder: Path, shown: str) -> list[Path]:
    files = [_inside(folder, p.name, shown) for p in folder.iterdir() if p.suffix in PT_SUFFIXES]
    files = [p for p in files if p.is_file()]
    return sorted(files, key=lambda p: (_rank(p.stem, _LAST_NUMBER) or 0, p.name))


def _inside(folder: Path, name: str, shown: str) -> Path:
    """``folder / name``; raises TensorFileError when it leads out of ``folder``."""
    path = folder / name
    if not leads_inside(path, folder):
        raise TensorFileError(
            f"{shown}/{name} leads out of {shown} (through a symlink or '..'), so it was not read"
        )
    return path


def _pt_differences(first: Path, other: Path, shown: str) -> Iterator[str]:
    mine = {p.name: p for p in _pt_files(first, shown)}
    theirs = {p.name: p for p in _pt_files(other, shown)} if other.is_dir() else {}
    files = names_difference(mine, theirs)
    if files is not None:
        yield f"in the files of {shown}: {files}"
        return
    for name, path in mine.items():
        label = f"{shown}/{name}"
        found = tensors_difference(load_tensors(path, label), load_tensors(theirs[name], label))
        if found is not None:
            rank = _rank(Path(name).stem, _LAST_NUMBER)
            yield f"at rank {rank}: {found}" if rank is not None else f"at {found}"


@dataclass(frozen=True, slots=True, kw_only=True)
class _Item:
    """One stored piece of a distributed checkpoint: a tensor's shard, or a pickled value."""

    fqn: str
    offsets: tuple[int, ...] | None  # None: not a tensor
    sizes: tuple[int, ...]
    rank: int | None  # from the file that holds it, `__RANK_N.distcp`
    path: str  # that file, relative to the folder
    offset: int
    length: int


def _dcp_items(folder: Path, shown: str) -> tuple[dict[str, tuple[Any, ...]], list[_Item]]:
    """Each entry's (dtype, size), and every stored item, in key then rank order."""
    from torch.distributed.checkpoint.filesystem import FileSystemReader
    from torch.distributed.checkpoint.metadata import MetadataIndex, TensorStorageMetadata

    _inside(folder, DCP_METADATA, shown)
    try:
        metadata = FileSystemReader(str(folder)).read_metadata()
    except Exception as exc:  # a pickle of torch's own classes: many ways to fail
        raise TensorFileError(f"cannot read {shown}/{DCP_METADATA}: {exc}") from exc
    storage = metadata.storage_data or {}
    entries: dict[str, tuple[Any, ...]] = {}
    items: list[_Item] = []
    pieces: list[tuple[tuple[int, ...] | None, tuple[int, ...]]]
    for fqn, entry in sorted(metadata.state_dict_metadata.items()):
        if isinstance(entry, TensorStorageMetadata):
            entries[fqn] = ("tensor", str(entry.properties.dtype), tuple(entry.size))
            pieces = [(tuple(c.offsets), tuple(c.sizes)) for c in entry.chunks]
        else:
            entries[fqn] = ("value",)
            pieces = [(None, ())]
        for offsets, sizes in pieces:
            info = storage.get(MetadataIndex(fqn, offsets))
            if info is None:
                raise TensorFileError(f"{shown}/{DCP_METADATA} names no file for {fqn!r}")
            if getattr(info, "transform_descriptors", None):
                raise TensorFileError(
                    f"{shown}: {fqn!r} is stored transformed (compressed); compare "
                    "checkpoints saved without transforms"
                )
            rank = _rank(info.relative_path, _DISTCP)
            items.append(
                _Item(
                    fqn=fqn,
                    offsets=offsets,
                    sizes=sizes,
                    rank=rank,
                    path=info.relative_path,
                    offset=info.offset,
                    length=info.length,
                )
            )
    items.sort(key=lambda i: (i.fqn, i.rank if i.rank is not None else -1, i.offsets or ()))
    return entries, items


def _dcp_differences(first: Path, other: Path, shown: str) -> Iterator[str]:
    if not (other / DCP_METADATA).is_file():
        yield f"in {shown}: no {DCP_METADATA} (not a torch.distributed.checkpoint)"
        return
    entries, items = _dcp_items(first, shown)
    their_entries, their_items = _dcp_items(other, shown)
    if entries != their_entries:
        yield _entries_difference(entries, their_entries, shown)
        return
    theirs = {(i.fqn, i.offsets): i for i in their_items}
    for item in items:
        twin = theirs.get((item.fqn, item.offsets))
        if twin is None:
            yield f"at {shown}[{item.fqn!r}]: its shards are split differently between ranks"
            return
        found = _item_difference(first, item, other, twin, shown)
        if found is not None:
            yield found


def _entries_difference(
    mine: dict[str, tuple[Any, ...]], theirs: dict[str, tuple[Any, ...]], shown: str
) -> str:
    entries = names_difference(mine, theirs)
    if entries is not None:
        return f"in the entries of {shown}: {entries}"
    key = next(k for k in mine if mine[k] != theirs[k])
    return f"at {shown}[{key!r}]: {_kind(mine[key])} != {_kind(theirs[key])}"


def _kind(entry: tuple[Any, ...]) -> str:
    if entry[0] == "value":
        return "a value"
    return f"{entry[1]} of shape {list(entry[2])}"


def _item_difference(first: Path, item: _Item, other: Path, twin: _Item, shown: str) -> str | None:
    mine, theirs = _read(first, item, shown), _read(other, twin, shown)
    if mine == theirs:
        return None
    a, b = _load(mine, item, shown), _load(theirs, twin, shown)
    if item.offsets is None:
        detail = value_difference(a, b) if a is not None else ": the pickled bytes differ"
    else:
        detail = value_difference(a, b, item.offsets)
    if detail is None:
        return None
    where = f"rank {item.rank}" if item.rank is not None else item.path
    if twin.rank != item.rank:
        where += f" (rank {twin.rank} in run 2's)"
    shard = ""
    if item.offsets is not None and any(item.offsets):
        spans = ", ".join(f"{o}:{o + s}" for o, s in zip(item.offsets, item.sizes, strict=True))
        shard = f" (its shard [{spans}])"
    return f"at {where}: {shown}[{item.fqn!r}]{shard}{detail}"


def _read(folder: Path, item: _Item, shown: str) -> bytes:
    try:
        data = read_range(_inside(folder, item.path, shown), item.offset, item.length)
    except FileError as exc:
        raise TensorFileError(f"cannot read {shown}/{item.path}: {exc.reason}") from exc
    if len(data) != item.length:
        raise TensorFileError(f"{shown}/{item.path} is cut short")
    return data


def _load(data: bytes, item: _Item, shown: str) -> Any:
    """A stored tensor; a pickled value (None when torch will not load it weights-only)."""
    import torch

    try:
        return torch.load(io.BytesIO(data), map_location="cpu", weights_only=True)
    except Exception as exc:
        if item.offsets is None:
            return None
        raise TensorFileError(f"torch cannot load {shown}[{item.fqn!r}]: {exc}") from exc
