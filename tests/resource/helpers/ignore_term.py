"""Ignore SIGTERM, say READY, then wait forever: only SIGKILL ends it."""

import signal
import sys
import time

signal.signal(signal.SIGTERM, signal.SIG_IGN)
print("READY", flush=True)
sys.stdout.close()
while True:
    time.sleep(3600)
