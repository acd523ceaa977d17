"""Compare `torch.save`d tensors bit for bit; report the first differing element.

torch is imported only here, and only when a `tensors:` comparison runs.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from pathlib import Path
from typing import Any


class TensorFileError(Exception):
    """A file that torch cannot load as tensors (with weights_only=True)."""


def load_tensors(path: Path, shown: str) -> dict[str, Any]:
    """The tensors in ``path``, flattened: `shown['name']` -> tensor (or a plain value)."""
    import torch

    try:
        value = torch.load(path, map_location="cpu", weights_only=True)
    except Exception as exc:  # torch raises many kinds: pickle, zip, runtime errors
        first = str(exc).strip().splitlines()[0] if str(exc).strip() else type(exc).__name__
        raise TensorFileError(f"torch cannot load {shown} (weights_only=True): {first}") from exc
    flat: dict[str, Any] = {}
    _flatten(value, shown, flat)
    return flat


def _flatten(value: Any, prefix: str, out: dict[str, Any]) -> None:
    import torch

    if isinstance(value, torch.Tensor):
        out[prefix] = value
    elif isinstance(value, Mapping):
        for key, item in value.items():
            _flatten(item, f"{prefix}[{key!r}]", out)
    elif isinstance(value, (list, tuple)):
        for index, item in enumerate(value):
            _flatten(item, f"{prefix}[{index}]", out)
    else:
        out[prefix] = value


def value_difference(a: Any, b: Any, offsets: tuple[int, ...] = ()) -> str | None:
    """How ``b`` (a tensor, or a plain value) differs from ``a``, bit for bit; None when
    equal. It starts at the first differing element's index (or `: ` for a whole value)."""
    return _difference(a, b, offsets)


def tensors_difference(first: Mapping[str, Any], other: Mapping[str, Any]) -> str | None:
    """How ``other`` differs from ``first``, bit for bit; None when every bit matches."""
    entries = names_difference(first, other, _few)
    if entries is not None:
        return f"different entries: {entries}"
    found = [(k, d) for k in first if (d := _difference(first[k], other[k])) is not None]
    if not found:
        return None
    name, detail = found[0]
    more = len(found) - 1
    noun = "tensor differs" if more == 1 else "tensors differ"
    tail = f" (and {more} more {noun})" if more else ""
    return f"{name}{detail}{tail}"


def names_difference(
    first: Iterable[str], other: Iterable[str], listed: Callable[[list[str]], str] = ", ".join
) -> str | None:
    """`missing A, B; extra C`: the names of ``first`` that ``other`` lacks and those it
    adds (``listed`` writes each list); None when both hold the same names."""
    mine, theirs = list(first), list(other)
    mine_set, theirs_set = set(mine), set(theirs)
    missing = [n for n in mine if n not in theirs_set]
    extra = [n for n in theirs if n not in mine_set]
    parts = [f"missing {listed(missing)}"] if missing else []
    parts += [f"extra {listed(extra)}"] if extra else []
    return "; ".join(parts) or None


def _few(names: list[str]) -> str:
    shown = ", ".join(names[:3])
    return shown + (f" and {len(names) - 3} more" if len(names) > 3 else "")


def _difference(a: Any, b: Any, offsets: tuple[int, ...] = ()) -> str | None:
    """How tensor (or value) ``b`` differs from ``a``; ``offsets`` place a shard in the
    whole tensor, so that the element is shown by its index in the whole."""
    import torch

    if not isinstance(a, torch.Tensor) or not isinstance(b, torch.Tensor):
        if type(a) is type(b) and a == b:
            return None
        return f": {a!r} != {b!r}"
    if a.dtype != b.dtype:
        return f": dtype {a.dtype} != {b.dtype}"
    if a.shape != b.shape:
        return f": shape {list(a.shape)} != {list(b.shape)}"
    if a.layout != torch.strided or b.layout != torch.strided:
        return None if _same_sparse(a, b) else ": sparse tensors differ"
    bytes_a, bytes_b = _bytes(a), _bytes(b)
    differs = (bytes_a != bytes_b).any(dim=1)
    count = int(differs.sum().item())
    if count == 0:
        return None
    first = int(differs.nonzero()[0, 0].item())
    flat_a, flat_b = a.reshape(-1), b.reshape(-1)
    where = _index(first, tuple(a.shape), offsets)
    value_a, value_b = flat_a[first].item(), flat_b[first].item()
    return (
        f"{where}: {value_a!r} != {value_b!r}; {count} of {a.numel()} elements differ, "
        f"max abs diff {_max_abs_diff(flat_a[differs], flat_b[differs])}"
    )


def _bytes(tensor: Any) -> Any:
    """Each element's bytes, as a [numel, element_size] uint8 tensor."""
    import torch

    flat = tensor.detach().contiguous().reshape(-1)
    return flat.view(torch.uint8).reshape(flat.numel(), tensor.element_size())


def _same_sparse(a: Any, b: Any) -> bool:
    import torch

    return bool(torch.equal(a.to_dense(), b.to_dense()))


def _index(flat: int, shape: tuple[int, ...], offsets: tuple[int, ...] = ()) -> str:
    if not shape:
        return ""
    index = []
    for size in reversed(shape):
        flat, rest = divmod(flat, size)
        index.append(rest)
    index.reverse()
    if offsets:
        index = [i + o for i, o in zip(index, offsets, strict=True)]
    return "[" + ", ".join(str(i) for i in index) + "]"


def _max_abs_diff(a: Any, b: Any) -> str:
    import torch

    if a.dtype.is_complex:
        diff = (a.to(torch.complex128) - b.to(torch.complex128)).abs()
    elif a.dtype.is_floating_point:
        diff = (a.double() - b.double()).abs()
    elif a.dtype == torch.bool:
        return "1"
    else:
        return str(int((a.long() - b.long()).abs().max().item()))
    return f"{float(diff.max().item()):.6g}"
