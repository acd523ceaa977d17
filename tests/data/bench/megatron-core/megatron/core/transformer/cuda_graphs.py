import gc
import os

# Freeze GC during capture.
FREEZE_GC = os.getenv("CUDA_GRAPH_CAPTURE_FREEZE_GC") != "0"


def capture(graph_fn):
    if FREEZE_GC:
        gc.freeze()
    try:
        return graph_fn()
    finally:
        if FREEZE_GC:
            gc.unfreeze()
