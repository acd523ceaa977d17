# flashinfer-python 0.7.2 flashinfer/kda_kernels/recurrent_kda.py:114-139, 214, 2062-2112, 1001
# Read inside a *_mode() helper (nothing in the name says kernel): "1" (default) lets T=1
# decode take a dedicated CuTe-DSL kernel; any other value returns None, the general path.
import os

import cutlass.cute as cute

from .general import run_recurrent_kda


def _t1_fast_path_mode(q, use_qk_l2norm_in_kernel, output_final_state, use_gate_in_kernel):
    """Return "raw", "precomputed", or None when not eligible."""
    if os.environ.get("FLASHINFER_KDA_T1_FAST_PATH", "1") != "1":
        return None
    if not use_qk_l2norm_in_kernel or output_final_state:
        return None
    mode = "raw" if use_gate_in_kernel else "precomputed"
    return mode


@cute.kernel
def _kda_decode_kernel(q, k, v, o, precomputed_gate):
    pass


def launch_unpacked_kda_decode_cute(q, k, v, o, precomputed_gate):
    fn = cute.compile(_kda_decode_kernel, q, k, v, o, precomputed_gate)
    fn(q, k, v, o)


def recurrent_kda(q, k, v, backend="auto", use_qk_l2norm_in_kernel=True, output_final_state=False,
                  use_gate_in_kernel=True):
    if (
        q.shape[1] == 1
        and backend in ("cute-dsl", "auto")
        and (fast_path_mode := _t1_fast_path_mode(q, use_qk_l2norm_in_kernel, output_final_state,
                                                  use_gate_in_kernel)) is not None
    ):
        o = q.new_empty(q.shape)
        launch_unpacked_kda_decode_cute(q, k, v, o, precomputed_gate=(fast_path_mode == "precomputed"))
        return o
    return run_recurrent_kda(q, k, v, backend=backend)
