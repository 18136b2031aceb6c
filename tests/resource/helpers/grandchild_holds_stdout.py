"""Fork a grandchild that keeps stdout (and stderr) open for a minute, print its pid, exit 0.

With ``--escape`` the grandchild also leaves the process group (``setsid``), so only the
bounded output drain can end the run.
"""

import os
import sys
import time

escape = "--escape" in sys.argv
pid = os.fork()
if pid == 0:
    if escape:
        os.setsid()
    time.sleep(60)
    os._exit(0)
print(f"grandchild={pid}", flush=True)
