"""The ``maka`` command line: sessions, turns and runs of Maka Runtime for a person at a terminal.

``maka --help`` lists the commands; :func:`main` is the console script.
"""

from maka_client.cli.app import main

__all__ = ["main"]
