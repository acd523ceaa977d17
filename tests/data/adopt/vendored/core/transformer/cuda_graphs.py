import os


class CudaGraphManager:
    def __init__(self):
        assert (
            "expandable_segments:True" not in os.getenv("PYTORCH_CUDA_ALLOC_CONF", "")
            or os.getenv("NCCL_GRAPH_REGISTER", "") == "0"
        ), "set NCCL_GRAPH_REGISTER=0 with expandable segments"
