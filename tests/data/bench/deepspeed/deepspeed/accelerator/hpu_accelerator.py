import os


class HPU_Accelerator:

    def apply_hpu_workarounds(self):

        def update_wa_env_var(key, value):
            if key not in os.environ.keys():
                os.environ[key] = value

        update_wa_env_var("PT_HPU_LAZY_ACC_PAR_MODE", "0")
