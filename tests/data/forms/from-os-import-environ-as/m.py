from os import environ as ENV

USE = ENV.get("PRIMUS_A", "1") != "0"
#     ^ PRIMUS_A on default="1" off="0"
