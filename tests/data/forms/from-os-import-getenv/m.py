from os import getenv

USE = getenv("PRIMUS_A", "1") != "0"
#     ^ PRIMUS_A on default="1" off="0" read=getenv
