# A size read once, made a number, tested for > 0 and then returned: a value knob, not a
# switch turned off by "0" (Liger-Kernel 0.8.5, liger_kernel/ops/backends/_ascend/
# ub_manager.py:192, UBManager._detect_ub_capacity).
import os


class UBManager:
    def _detect_ub_capacity(self) -> int:
        env_capacity = os.getenv("ASCEND_UB_CAPACITY_BITS")
#                      ^ ASCEND_UB_CAPACITY_BITS none read=getenv function=UBManager._detect_ub_capacity
        if env_capacity is not None:
            try:
                capacity_bits = int(env_capacity)
                if capacity_bits > 0:
                    return capacity_bits
            except ValueError:
                pass
        if is_npu_available():
            return query_capacity()
        raise RuntimeError("the UB capacity cannot be detected; set ASCEND_UB_CAPACITY_BITS")
