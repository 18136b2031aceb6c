"""Fork a grandchild that keeps stdout (and stderr) open until it is killed, print its pid,
exit 0.

With ``--escape`` the grandchild also leaves the process group (``setsid``), so only the
bounded output drain can end the run (the test then kills the grandchild itself).
"""

import os
import signal
import sys

escape = "--escape" in sys.argv
pid = os.fork()
if pid == 0:
    if escape:
        os.setsid()
    while True:
        signal.pause()  # wakes only for a signal; SIGKILL ends it
print(f"grandchild={pid}", flush=True)
