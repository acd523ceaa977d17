# unsloth 2026.10.9 unsloth/models/_utils.py:4591-4619
import os

from unsloth_zoo.patching_utils import patch_torch_compile

UNSLOTH_COMPILE_DEBUG = os.environ.get("UNSLOTH_COMPILE_DEBUG", "0") == "1"
UNSLOTH_COMPILE_MAXIMUM = os.environ.get("UNSLOTH_COMPILE_MAXIMUM", "0") == "1"
UNSLOTH_COMPILE_IGNORE_ERRORS = os.environ.get("UNSLOTH_COMPILE_IGNORE_ERRORS", "1") == "1"

patch_torch_compile(
    debug=UNSLOTH_COMPILE_DEBUG,
    O3=UNSLOTH_COMPILE_MAXIMUM,
    ignore_errors=UNSLOTH_COMPILE_IGNORE_ERRORS,
)
