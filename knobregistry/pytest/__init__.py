"""The pytest integration: the plugin and its ini keys."""
