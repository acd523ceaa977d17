"""Standard output written exactly: the bytes of a file, to a terminal, a pipe or `> file` alike.

`click.echo` strips ANSI escapes when standard output is not a terminal, so a
value holding `\\x1b[31m` would reach `> env.sh` changed; an exported file must
be the same bytes however it is written. Text goes out as UTF-8 whatever the
locale, as `--output FILE` writes it.
"""

from __future__ import annotations

import contextlib
import os
import sys
from pathlib import Path

from knobregistry._io.files import FileError, reason

STDOUT = Path("/dev/stdout")


def write_exactly(text: str) -> None:
    """Write ``text`` to standard output as UTF-8 bytes; raises FileError when it cannot."""
    stream = sys.stdout
    try:
        stream.flush()
        buffer = getattr(stream, "buffer", None)
        if buffer is None:  # a text-only stream (a test's capture): no bytes to write
            stream.write(text)
            stream.flush()
        else:
            buffer.write(text.encode("utf-8"))
            buffer.flush()
    except OSError as exc:
        _discard_pending()
        raise FileError(STDOUT, reason(exc), exc.errno or 0) from exc


def _discard_pending() -> None:
    """Point standard output at /dev/null, so the flush at exit does not fail a second time."""
    with contextlib.suppress(OSError, ValueError, AttributeError):
        null = os.open(os.devnull, os.O_WRONLY)
        os.dup2(null, sys.stdout.fileno())
        os.close(null)
