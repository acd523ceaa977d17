def enabled():
    import os

    return os.getenv("PRIMUS_A", "1") != "0"
#          ^ PRIMUS_A on default="1" off="0" function=enabled read=getenv
