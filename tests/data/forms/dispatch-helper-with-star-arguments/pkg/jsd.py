# liger_kernel/ops/jsd.py:122: the literal op name, then the tensors spread with *.
from pkg.dispatch import dispatch


def jsd_loss_and_grad(*jsd_args, jsd_impl=None, jsd_mode=None):
    return dispatch(
#          ^ LIGER_KERNEL_BACKEND_JSD_LOSS_AND_GRAD none function=jsd_loss_and_grad read=wrapper via=pkg.dispatch.dispatch
#          ^ LIGER_KERNEL_IMPL_JSD_LOSS_AND_GRAD none function=jsd_loss_and_grad read=wrapper via=pkg.dispatch.dispatch
        "jsd_loss_and_grad",
        *jsd_args,
        impl=jsd_impl,
        mode=jsd_mode,
    )
