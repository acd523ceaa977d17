from pkg import util

HC_ON = util.env_flag("PRIMUS_HC_TRITON", default=True)
#       ^ PRIMUS_HC_TRITON on default="True" off="0" read=wrapper via=pkg.util.env_flag
