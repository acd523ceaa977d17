"""Triton kernels behind the toy model's fused paths.

Importing this module imports triton, so ``layers.py`` imports it lazily, only when
a Triton-backed fusion is switched on: an all-eager run needs no triton. Every
tensor in the example lives on the CPU, where Triton runs through its interpreter
(``TRITON_INTERPRET=1``, which ``train.py`` sets).

Each kernel works on a tile of ``BLOCK_ROWS`` rows by the whole feature dimension,
so a row's math never depends on the tiling.
"""

# mypy: disable-error-code="untyped-decorator,no-untyped-def"
# (triton ships no type information; its kernels take untyped pointer arguments)

import os as _os

import torch
import triton  # type: ignore[import-untyped]
import triton.language as tl  # type: ignore[import-untyped]

# Rows per program. A scheduling choice only: any power of two gives the same bits.
BLOCK_ROWS = int(_os.environ.get("TOY_BLOCK_SIZE", "64"))
if BLOCK_ROWS <= 0 or BLOCK_ROWS & (BLOCK_ROWS - 1):
    raise ValueError(f"TOY_BLOCK_SIZE must be a positive power of two, got {BLOCK_ROWS}")


def _grid(n_rows: int) -> tuple[int]:
    return (triton.cdiv(n_rows, BLOCK_ROWS),)


@triton.jit
def _rmsnorm_fwd_kernel(
    X,
    W,
    Y,
    n_rows,
    n_cols,
    eps,
    BLOCK_ROWS: tl.constexpr,
    BLOCK_COLS: tl.constexpr,
):
    rows = tl.program_id(0) * BLOCK_ROWS + tl.arange(0, BLOCK_ROWS)
    cols = tl.arange(0, BLOCK_COLS)
    col_mask = cols < n_cols
    mask = (rows < n_rows)[:, None] & col_mask[None, :]
    offsets = rows[:, None] * n_cols + cols[None, :]
    x = tl.load(X + offsets, mask=mask, other=0.0).to(tl.float32)
    rstd = 1.0 / tl.sqrt(tl.sum(x * x, axis=1) / n_cols + eps)
    w = tl.load(W + cols, mask=col_mask, other=0.0).to(tl.float32)
    tl.store(Y + offsets, x * rstd[:, None] * w[None, :], mask=mask)


@triton.jit
def _rope_kernel(
    X,
    COS,
    SIN,
    Y,
    n_rows,
    seq_len,
    n_heads,
    HALF: tl.constexpr,
    INVERSE: tl.constexpr,
    BLOCK_ROWS: tl.constexpr,
):
    # X is [batch, seq, heads, 2 * HALF] flattened to rows; COS/SIN are [seq, HALF].
    rows = tl.program_id(0) * BLOCK_ROWS + tl.arange(0, BLOCK_ROWS)
    cols = tl.arange(0, HALF)
    mask = (rows < n_rows)[:, None]
    pos = (rows // n_heads) % seq_len
    lo = rows[:, None] * (2 * HALF) + cols[None, :]
    x1 = tl.load(X + lo, mask=mask, other=0.0)
    x2 = tl.load(X + lo + HALF, mask=mask, other=0.0)
    table = pos[:, None] * HALF + cols[None, :]
    cos = tl.load(COS + table, mask=mask, other=0.0)
    sin = tl.load(SIN + table, mask=mask, other=0.0)
    if INVERSE:  # the backward pass rotates by -theta
        sin = -sin
    tl.store(Y + lo, x1 * cos - x2 * sin, mask=mask)
    tl.store(Y + lo + HALF, x2 * cos + x1 * sin, mask=mask)


@triton.jit
def _swiglu_fwd_kernel(
    GU,
    OUT,
    n_rows,
    n_ffn,
    BLOCK_ROWS: tl.constexpr,
    BLOCK_COLS: tl.constexpr,
):
    # GU is [rows, 2 * n_ffn]: the gate projection, then the up projection.
    rows = tl.program_id(0) * BLOCK_ROWS + tl.arange(0, BLOCK_ROWS)
    cols = tl.arange(0, BLOCK_COLS)
    mask = (rows < n_rows)[:, None] & (cols < n_ffn)[None, :]
    src = rows[:, None] * (2 * n_ffn) + cols[None, :]
    gate = tl.load(GU + src, mask=mask, other=0.0).to(tl.float32)
    up = tl.load(GU + src + n_ffn, mask=mask, other=0.0).to(tl.float32)
    silu = gate / (1.0 + tl.exp(-gate))
    tl.store(OUT + rows[:, None] * n_ffn + cols[None, :], silu * up, mask=mask)


@triton.jit
def _swiglu_bwd_kernel(
    GU,
    DOUT,
    DGU,
    n_rows,
    n_ffn,
    BLOCK_ROWS: tl.constexpr,
    BLOCK_COLS: tl.constexpr,
):
    rows = tl.program_id(0) * BLOCK_ROWS + tl.arange(0, BLOCK_ROWS)
    cols = tl.arange(0, BLOCK_COLS)
    mask = (rows < n_rows)[:, None] & (cols < n_ffn)[None, :]
    src = rows[:, None] * (2 * n_ffn) + cols[None, :]
    gate = tl.load(GU + src, mask=mask, other=0.0).to(tl.float32)
    up = tl.load(GU + src + n_ffn, mask=mask, other=0.0).to(tl.float32)
    dout = tl.load(DOUT + rows[:, None] * n_ffn + cols[None, :], mask=mask, other=0.0)
    sig = 1.0 / (1.0 + tl.exp(-gate))
    silu = gate * sig
    dsilu = sig * (1.0 + gate * (1.0 - sig))
    tl.store(DGU + src, dout * up * dsilu, mask=mask)
    tl.store(DGU + src + n_ffn, dout * silu, mask=mask)


def rmsnorm_fwd(x: torch.Tensor, weight: torch.Tensor, eps: float) -> torch.Tensor:
    """RMSNorm over the last dimension of ``x``."""
    x2d = x.reshape(-1, x.shape[-1]).contiguous()
    y = torch.empty_like(x2d)
    n_rows, n_cols = x2d.shape
    _rmsnorm_fwd_kernel[_grid(n_rows)](
        x2d,
        weight.contiguous(),
        y,
        n_rows,
        n_cols,
        eps,
        BLOCK_ROWS=BLOCK_ROWS,
        BLOCK_COLS=triton.next_power_of_2(n_cols),
    )
    return y.view_as(x)


def rope(x: torch.Tensor, cos: torch.Tensor, sin: torch.Tensor, inverse: bool) -> torch.Tensor:
    """Rotate ``x`` of shape [batch, seq, heads, head_dim] by the cos/sin tables."""
    batch, seq_len, n_heads, head_dim = x.shape
    half = head_dim // 2
    if half & (half - 1):
        raise ValueError(f"the RoPE kernel needs head_dim / 2 to be a power of two, got {half}")
    x = x.contiguous()
    y = torch.empty_like(x)
    n_rows = batch * seq_len * n_heads
    _rope_kernel[_grid(n_rows)](
        x,
        cos.contiguous(),
        sin.contiguous(),
        y,
        n_rows,
        seq_len,
        n_heads,
        HALF=half,
        INVERSE=inverse,
        BLOCK_ROWS=BLOCK_ROWS,
    )
    return y


def swiglu_fwd(gate_up: torch.Tensor) -> torch.Tensor:
    """``silu(gate) * up`` where ``gate_up`` is ``[..., 2 * ffn]``."""
    gu = gate_up.reshape(-1, gate_up.shape[-1]).contiguous()
    n_rows, n_ffn = gu.shape[0], gu.shape[1] // 2
    out = gu.new_empty(n_rows, n_ffn)
    _swiglu_fwd_kernel[_grid(n_rows)](
        gu, out, n_rows, n_ffn, BLOCK_ROWS=BLOCK_ROWS, BLOCK_COLS=triton.next_power_of_2(n_ffn)
    )
    return out.view(*gate_up.shape[:-1], n_ffn)


def swiglu_bwd(gate_up: torch.Tensor, grad_out: torch.Tensor) -> torch.Tensor:
    """Gradient of :func:`swiglu_fwd` with respect to ``gate_up``."""
    gu = gate_up.reshape(-1, gate_up.shape[-1]).contiguous()
    dout = grad_out.reshape(gu.shape[0], -1).contiguous()
    n_rows, n_ffn = dout.shape
    dgu = torch.empty_like(gu)
    _swiglu_bwd_kernel[_grid(n_rows)](
        gu,
        dout,
        dgu,
        n_rows,
        n_ffn,
        BLOCK_ROWS=BLOCK_ROWS,
        BLOCK_COLS=triton.next_power_of_2(n_ffn),
    )
    return dgu.view_as(gate_up)
