from pkg.nccl import pin_env


def override_envs() -> None:
    pin_env({"PRIMUS_PIN_CHANNELS": "1"})
#   ^ PRIMUS_PIN_CHANNELS none function=override_envs read=wrapper via=pkg.nccl.pin_env
