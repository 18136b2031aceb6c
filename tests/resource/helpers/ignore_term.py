"""Ignore SIGTERM, say READY, then wait for signals forever: only SIGKILL ends it."""

import signal
import sys

signal.signal(signal.SIGTERM, signal.SIG_IGN)
print("READY", flush=True)
sys.stdout.close()
while True:
    signal.pause()
