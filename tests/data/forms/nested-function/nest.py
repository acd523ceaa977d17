import os


def outer():
    def inner():
        return os.environ.get("PRIMUS_NESTED", "1") != "0"
#              ^ PRIMUS_NESTED on default="1" off="0" function=outer.<locals>.inner

    return inner
