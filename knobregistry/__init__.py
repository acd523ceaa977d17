"""knobregistry: keep the environment knobs that gate fused kernels honest."""

__version__ = "0.1.0"
