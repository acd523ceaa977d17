"""Renderers: results in, text out. No exit codes here."""
