"""Per-module checksums of a training run, to find where two runs first differ.

Hooks on every module of a model record, per step, an exact fingerprint (BLAKE2b of
the dtype, the shape and the bytes) of each module's outputs in the forward pass, of
the gradients flowing through it in the backward pass (``grad_output`` then
``grad_input``), and of each parameter's gradient as it is accumulated. The records
go to ``FOLDER/rank-R.jsonl`` (see knobregistry/_io/checksum_format.py), rewritten
atomically at the end of each step, in the order the hooks ran.

A step ends when the optimizer steps (``optimizer`` given) or at ``Checksums.step()``.
Bounded: only the first ``first_steps`` steps are recorded, after which the hooks are
removed; with ``first_steps=None`` every step is recorded and the last ``keep_steps``
are kept.
"""

from __future__ import annotations

import atexit
import ctypes
import hashlib
import json
import os
import threading
import warnings
from collections import deque
from collections.abc import Callable, Iterator, Sequence
from pathlib import Path
from typing import Any

import torch
from torch import nn
from torch.utils.hooks import RemovableHandle

from knobregistry._io.atomic import write_atomic
from knobregistry._io.checksum_format import ENVIRONMENT_VARIABLE, FORMAT, VERSION, rank_file
from knobregistry._io.digits import MAX_DIGITS

FIRST_STEPS = 4  # recorded by default: a nondeterministic kernel shows in the first step
KEEP_STEPS = 4  # kept by default when every step is recorded
STEPS_VARIABLE = "KNOBS_CHECKSUMS_STEPS"  # first N steps, or "all"
KEEP_VARIABLE = "KNOBS_CHECKSUMS_KEEP"  # with "all": the last K steps kept
_NO_INPUT_GRADIENTS = "Full backward hook is firing when gradients are computed with respect"
_MAX_DEPTH = 4  # nesting of tuples, lists and dicts searched for tensors in an output


def fingerprint(tensor: torch.Tensor) -> str:
    """The BLAKE2b digest (32 hex digits) of ``tensor``'s dtype, shape and bytes.

    A tensor on an accelerator is copied to the host first (which waits for it).
    """
    data = tensor.detach()
    to_local = getattr(data, "to_local", None)  # a DTensor: this rank's shard
    if callable(to_local):
        data = to_local()
    data = data.resolve_conj().resolve_neg().cpu().contiguous()
    digest = hashlib.blake2b(digest_size=16)
    digest.update(f"{data.dtype} {tuple(data.shape)}\n".encode())
    size = data.numel() * data.element_size()
    if size:
        digest.update((ctypes.c_char * size).from_address(data.data_ptr()))
    return digest.hexdigest()


class Checksums:
    """The recorder of one process (one rank): hooks, the steps kept, the record file."""

    def __init__(
        self,
        folder: Path | str,
        *,
        first_steps: int | None = FIRST_STEPS,
        keep_steps: int = KEEP_STEPS,
    ) -> None:
        if first_steps is not None and first_steps < 1:
            raise ValueError(
                f"first_steps must be at least 1 (or None for every step), not {first_steps}"
            )
        if keep_steps < 1:
            raise ValueError(f"keep_steps must be at least 1, not {keep_steps}")
        self.folder = Path(folder)
        self.first_steps = first_steps
        self.keep_steps = keep_steps
        self.step_number = 0
        self._kept: deque[list[str]] = deque(maxlen=None if first_steps else keep_steps)
        self._current: list[str] = []
        self._handles: list[RemovableHandle] = []
        self._lock = threading.Lock()
        self._rank: tuple[int, int] | None = None
        self._closed = False
        atexit.register(self.close)

    @property
    def recording(self) -> bool:
        """Whether the current step is recorded."""
        return not self._closed and (
            self.first_steps is None or self.step_number < self.first_steps
        )

    def attach(self, model: nn.Module, prefix: str = "") -> Checksums:
        """Hook every module of ``model`` and every parameter it holds; names start with
        ``prefix`` (the root module itself is ``prefix``, or ``model`` when empty)."""
        # A module whose inputs need no gradient (the first layer) still has its grad_output
        # recorded; torch warns about that on every backward.
        warnings.filterwarnings("ignore", message=_NO_INPUT_GRADIENTS, category=UserWarning)
        for name, module in model.named_modules(prefix=prefix):
            path = name or "model"
            self._handles.append(module.register_forward_hook(self._forward_hook(path)))
            self._handles.append(module.register_full_backward_hook(self._backward_hook(path)))
        for name, parameter in model.named_parameters(prefix=prefix):
            owner, _, leaf = name.rpartition(".")
            hook = self._gradient_hook(owner or "model", f"{leaf}.grad")
            handle = parameter.register_post_accumulate_grad_hook(hook)  # type: ignore[no-untyped-call]
            self._handles.append(handle)
        return self

    def follow(self, optimizer: Any) -> Checksums:
        """End a step each time ``optimizer`` steps: a torch optimizer's step post hook,
        else its ``step`` method wrapped (Megatron's optimizers are not torch's)."""
        if isinstance(optimizer, torch.optim.Optimizer):
            self._handles.append(optimizer.register_step_post_hook(lambda *_: self.step()))
            return self
        original: Callable[..., Any] = optimizer.step

        def step(*args: Any, **kwargs: Any) -> Any:
            result = original(*args, **kwargs)
            self.step()
            return result

        optimizer.step = step
        return self

    def step(self) -> None:
        """End the current step: keep its records, write the file, count the next step."""
        with self._lock:
            if not self.recording:
                self.step_number += 1
                return
            self._kept.append(self._current)
            self._current = []
            self.step_number += 1
        self.write()
        if not self.recording:
            self._remove_hooks()

    def close(self) -> None:
        """Write what the current step recorded so far, and remove the hooks."""
        if self._closed:
            return
        self.write()
        self._closed = True
        self._remove_hooks()
        atexit.unregister(self.close)

    def write(self) -> None:
        """Write the kept steps and the current one to the rank's file, atomically."""
        rank, world_size = self._rank_and_size()
        header = {
            "format": FORMAT,
            "version": VERSION,
            "rank": rank,
            "world_size": world_size,
            "first_steps": self.first_steps,
            "keep_steps": None if self.first_steps else self.keep_steps,
            "torch": str(torch.__version__),
        }
        with self._lock:
            lines = [json.dumps(header)]
            for records in self._kept:
                lines += records
            lines += self._current
        self.folder.mkdir(parents=True, exist_ok=True)
        write_atomic(self.folder / rank_file(rank), "\n".join(lines) + "\n")

    def _rank_and_size(self) -> tuple[int, int]:
        if self._rank is None:
            distributed = torch.distributed
            if distributed.is_available() and distributed.is_initialized():
                self._rank = (distributed.get_rank(), distributed.get_world_size())
            else:
                env = os.environ
                self._rank = (int(env.get("RANK", "0")), int(env.get("WORLD_SIZE", "1")))
        return self._rank

    def _remove_hooks(self) -> None:
        for handle in self._handles:
            handle.remove()
        self._handles.clear()

    def _record(self, pass_: str, module: str, tensor_name: str, tensor: torch.Tensor) -> None:
        record: dict[str, Any] = {"step": self.step_number, "pass": pass_, "module": module}
        record |= {"tensor": tensor_name, "dtype": str(tensor.dtype).removeprefix("torch.")}
        record["shape"] = list(tensor.shape)
        try:
            record["blake2b"] = fingerprint(tensor)
        except (RuntimeError, NotImplementedError, ValueError) as exc:  # meta, sparse
            record |= {"blake2b": None, "why": str(exc).splitlines()[0][:200]}
        line = json.dumps(record)
        with self._lock:
            self._current.append(line)

    def _forward_hook(self, path: str) -> Callable[[nn.Module, Any, Any], None]:
        def hook(module: nn.Module, args: Any, output: Any) -> None:
            if self.recording:
                for name, tensor in _tensors(output, "output"):
                    self._record("forward", path, name, tensor)

        return hook

    def _backward_hook(self, path: str) -> Callable[[nn.Module, Any, Any], None]:
        def hook(module: nn.Module, grad_input: Any, grad_output: Any) -> None:
            if self.recording:
                for name, tensor in _tensors(grad_output, "grad_output"):
                    self._record("backward", path, name, tensor)
                for name, tensor in _tensors(grad_input, "grad_input"):
                    self._record("backward", path, name, tensor)

        return hook

    def _gradient_hook(self, path: str, name: str) -> Callable[[torch.Tensor], None]:
        def hook(parameter: torch.Tensor) -> None:
            grad = parameter.grad
            if grad is None:  # Megatron's DDP accumulates into main_grad
                grad = getattr(parameter, "main_grad", None)
            if self.recording and isinstance(grad, torch.Tensor):
                self._record("backward", path, name, grad)

        return hook


def _tensors(value: Any, name: str, depth: int = 0) -> Iterator[tuple[str, torch.Tensor]]:
    """The tensors in a module's output or gradients, each with its place in it."""
    if isinstance(value, torch.Tensor):
        yield name, value
    elif depth >= _MAX_DEPTH:
        return
    elif isinstance(value, (tuple, list)):
        for index, item in enumerate(value):
            yield from _tensors(item, f"{name}[{index}]", depth + 1)
    elif isinstance(value, dict):
        for key, item in value.items():
            yield from _tensors(item, f"{name}[{key!r}]", depth + 1)


def knobs_checksums(
    model: nn.Module | Sequence[nn.Module],
    path: Path | str,
    optimizer: Any = None,
    *,
    first_steps: int | None = FIRST_STEPS,
    keep_steps: int = KEEP_STEPS,
) -> Checksums:
    """Record ``model``'s checksums into the folder ``path``; steps end when ``optimizer``
    steps, or at each call of the returned recorder's ``step()``.

    ``model`` may be a list of model chunks (Megatron's virtual pipeline stages,
    TorchTitan's model parts): with more than one, chunk i's modules are named
    ``chunkI.<path>``.
    """
    checksums = Checksums(path, first_steps=first_steps, keep_steps=keep_steps)
    chunks = [model] if isinstance(model, nn.Module) else list(model)
    for index, chunk in enumerate(chunks):
        checksums.attach(chunk, prefix=f"chunk{index}" if len(chunks) > 1 else "")
    return checksums.follow(optimizer) if optimizer is not None else checksums


def checksums_from_env(
    model: nn.Module | Sequence[nn.Module], optimizer: Any = None
) -> Checksums | None:
    """``knobs_checksums`` into the folder KNOBS_CHECKSUMS names (triage sets it for
    ``--compare checksums:DIR``); None, and nothing hooked, when it is unset or empty.

    KNOBS_CHECKSUMS_STEPS: the first N steps recorded (default 4), or ``all`` with
    KNOBS_CHECKSUMS_KEEP, the last K steps kept (default 4).
    """
    folder = os.environ.get(ENVIRONMENT_VARIABLE, "")
    if not folder:
        return None
    steps = os.environ.get(STEPS_VARIABLE, str(FIRST_STEPS)).strip()
    first = None if steps == "all" else _count(STEPS_VARIABLE, steps, "or 'all'")
    keep = _count(KEEP_VARIABLE, os.environ.get(KEEP_VARIABLE, str(KEEP_STEPS)).strip(), "")
    return knobs_checksums(model, folder, optimizer, first_steps=first, keep_steps=keep)


_SHOWN = 60  # the most of a variable's value a message shows


def _count(variable: str, text: str, other: str) -> int:
    if not (text.isascii() and text.isdigit()) or len(text) > MAX_DIGITS or int(text) < 1:
        raise ValueError(
            f"{variable}={text[:_SHOWN]!r}: give a number of steps, 1 or more"
            f"{f' {other}' if other else ''}."
        )
    return int(text)
