# unsloth_zoo 2026.10.9 unsloth_zoo/patching_utils.py:183, 255, 281, 299-310
# ignore_errors only sets whether a failed compile raises or silently runs eager.
import torch


def patch_torch_compile(debug=False, O3=False, ignore_errors=True):
    torch_compile_arguments = [f"config.max_autotune = {O3}"]
    torch_dynamo_arguments = [f"config.suppress_errors = {not debug and ignore_errors}"]
    if not debug and ignore_errors:
        # Have to explicitly set it!
        torch._dynamo.config.suppress_errors = True
    import torch._inductor.config as config
    for _try_compile_argument in torch_compile_arguments:
        exec(_try_compile_argument)
    import torch._dynamo.config as config  # noqa: F811
    for _try_dynamo_argument in torch_dynamo_arguments:
        exec(_try_dynamo_argument)
