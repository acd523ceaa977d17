import os


class Config:
    fused = os.environ.get("PRIMUS_FUSED", "1") != "0"
#           ^ PRIMUS_FUSED on default="1" off="0" function=Config
