"""The project a command runs on: its one scan, its trainers' config types, its stack, and
its fingerprints."""
