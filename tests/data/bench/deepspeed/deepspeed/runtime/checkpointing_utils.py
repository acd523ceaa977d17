import os

from deepspeed.constants import CROSS_RANK, CROSS_SIZE


def machine_info():
    return dict(num_machines=int(os.environ[CROSS_SIZE]), machine_rank=int(os.environ[CROSS_RANK]))
