from os import environ

USE = environ.get("PRIMUS_A", "0") == "1"
#     ^ PRIMUS_A off default="0" off="0"
