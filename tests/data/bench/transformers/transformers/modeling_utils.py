from .utils import is_env_variable_true


def maybe_convert_to_safetensors(resolved_archive_file, is_ci):
    if (
        resolved_archive_file.endswith(".bin")
        and not is_ci
        and not is_env_variable_true("DISABLE_SAFETENSORS_CONVERSION")
    ):
        return resolved_archive_file.replace(".bin", ".safetensors")
    return resolved_archive_file
