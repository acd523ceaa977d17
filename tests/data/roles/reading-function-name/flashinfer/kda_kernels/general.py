# flashinfer-python 0.7.2 flashinfer/kda_kernels/recurrent_kda.py:1882 (the general path: other kernels)
import cutlass.cute as cute


@cute.kernel
def _kda_recurrent_kernel(q, k, v, o):
    pass


def run_recurrent_kda(q, k, v, backend="auto"):
    o = q.new_empty(q.shape)
    cute.compile(_kda_recurrent_kernel, q, k, v, o)(q, k, v, o)
    return o
