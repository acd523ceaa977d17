from pkg.flags import fused


def use_fused_mlp() -> bool:
    return fused("PRIMUS_FUSED_MLP")
#          ^ PRIMUS_FUSED_MLP on default="1" off="0" function=use_fused_mlp read=wrapper via=pkg.flags.fused
#          ^ PRIMUS_KERNEL_CACHE on default="1" off="0" function=use_fused_mlp read=wrapper via=pkg.flags.fused
