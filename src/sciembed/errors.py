"""`SciembedInputError`: the one base class of sciembed's input errors.

Every error raised for bad input — a file, a line, an option, a config value,
a damaged directory — derives from it and carries a message that names what is
wrong and where. The `sciembed` command's guard (`cli/errors.py`) turns any of
them into one line on stderr and exit code 2; a caller of the library can catch
them all with one ``except SciembedInputError``. Each subclass keeps its
former builtin base too (``ValueError``, ``RuntimeError``, ``OSError``) so
code that caught those still does.
"""

from __future__ import annotations


class SciembedInputError(Exception):
    """Bad input to sciembed: the message says what, where and how many."""
