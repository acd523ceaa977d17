import os


def fused(name: str) -> bool:
    cache = os.environ.get("PRIMUS_KERNEL_CACHE", "1")
    #       ^ PRIMUS_KERNEL_CACHE none default="1" function=fused
    return os.environ.get(name, "1") != "0" and cache != "0"
