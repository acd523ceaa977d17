import os

DEBUG = "PRIMUS_DEBUG" in os.environ and os.environ["PRIMUS_DEBUG"] == "1"
#       ^ PRIMUS_DEBUG off off="0" read=contains
#                                        ^ PRIMUS_DEBUG off off="0" read=subscript
