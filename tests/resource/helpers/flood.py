"""Write SIZE bytes to stdout as fast as possible, then ``END`` (a sentinel) and exit 0."""

import os
import sys

size = int(sys.argv[1])
block = b"x" * 65536
left = size
while left > 0:
    left -= os.write(1, block[: min(left, len(block))])
os.write(1, b"END\n")
