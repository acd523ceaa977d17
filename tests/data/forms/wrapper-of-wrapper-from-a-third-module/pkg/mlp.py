from pkg.fusions import fusion_enabled


def forward(x):
    if fusion_enabled("PRIMUS_SWIGLU_FUSED"):
#      ^ PRIMUS_SWIGLU_FUSED on default="True" off="0" function=forward read=wrapper via=pkg.fusions.fusion_enabled
        return fused(x)
    return eager(x)
