# Liger-Kernel 0.8.5, liger_kernel/backends/dispatch.py:250 (_per_op_env), :265
# (resolve_impl) and :332 (dispatch): the op's name reaches a read two wrappers down.
import os


def _per_op_env(op_name):
    op_up = op_name.upper()
    return os.environ.get(f"LIGER_KERNEL_IMPL_{op_up}") or os.environ.get(
        f"LIGER_KERNEL_BACKEND_{op_up}"
    )


def resolve_impl(op_name, requested=None, device=None):
    return requested or _per_op_env(op_name)


def dispatch(op_name, *args, impl=None, backend=None, **kwargs):
    if impl is None and backend is not None:
        impl = backend
    return resolve_impl(op_name, requested=impl)
