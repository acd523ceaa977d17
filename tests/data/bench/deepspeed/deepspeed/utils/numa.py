import os


def get_numactl_cmd(bind_core_list, num_local_procs, local_rank):
    numactl_cmd = []
    # check if KMP_AFFINITY is set and warn the user
    if 'KMP_AFFINITY' in os.environ.keys():
        raise ValueError("Environment variable KMP_AFFINITY conflicts with numactl "
                         "because it interfere with how many CPU cores numactl can set. "
                         "Unset KMP_AFFINITY before launching deepspeed.")
    return numactl_cmd
