"""Every renderer of a command's output, one module per output: results in, text out. No exit
codes here."""
