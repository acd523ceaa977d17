import os


def debug_dump_path():
    if "PRIMUS_DEBUG_DUMP" in os.environ:
#      ^ PRIMUS_DEBUG_DUMP none function=debug_dump_path read=contains
        return os.environ["PRIMUS_DEBUG_DUMP"]
#              ^ PRIMUS_DEBUG_DUMP none function=debug_dump_path read=subscript
    return None
