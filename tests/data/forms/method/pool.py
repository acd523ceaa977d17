import os


class Compressor:
    def use_pool_kernel(self) -> bool:
        return os.getenv("PRIMUS_COMPRESS_POOL_TRITON", "1") != "0"
#              ^ PRIMUS_COMPRESS_POOL_TRITON on default="1" off="0" function=Compressor.use_pool_kernel read=getenv
