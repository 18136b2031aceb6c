"""The ``maka`` command line: sessions, turns and runs of Maka Runtime for a person at a terminal.

``maka --help`` lists the commands; :func:`main` is the console script.

gRPC's own log lines (a GOAWAY, a reconnect) never reach the terminal: its logging is turned
off here, before anything imports ``grpc`` (the package ``maka_runtime_client`` loads lazily for
this).
"""

import os

os.environ["GRPC_VERBOSITY"] = "NONE"

# After the logging switch, on purpose.
from maka_runtime_client.cli.app import main

__all__ = ["main"]
