import os
from dataclasses import dataclass


@dataclass
class DistributedDataParallelConfig:
    nccl_ub: bool = False

    def __post_init__(self):
        if self.nccl_ub:
            if 'expandable_segments:True' in os.getenv('PYTORCH_CUDA_ALLOC_CONF', '').split(','):
                raise ValueError("expandable_segments:True is not supported with nccl_ub")
