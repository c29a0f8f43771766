"""`SciembedInputError`: the one base class of sciembed's input errors.

Every error raised for bad input (a file, a line, an option, a config value, a damaged directory) derives
from it, names what is wrong and where, and keeps its former builtin base (``ValueError``, ...). The
command's guard (`cli/errors.py`) turns any of them into one stderr line and exit code 2.
"""

from __future__ import annotations


class SciembedInputError(Exception):
    """Bad input to sciembed: the message says what, where and how many."""
