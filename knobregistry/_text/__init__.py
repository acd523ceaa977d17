"""Text for people: counts, widths and tables, safe printing, paths as shown, progress."""
