"""Write a multi-byte character in two writes separated by a round trip through the terminal.

The first two bytes of "€" are written and flushed; the rest follows only after a line of input
arrives, so the host is certain to read the character in two pieces. Then an invalid byte
sequence, and END.
"""

import os
import sys
import termios

# Without echo, the input line cannot land between the two halves of the character.
attributes = termios.tcgetattr(0)
attributes[3] &= ~termios.ECHO
termios.tcsetattr(0, termios.TCSANOW, attributes)
euro = "€".encode()
os.write(1, b"A" + euro[:2])
sys.stdin.readline()
os.write(1, euro[2:] + b"B\r\n" + b"bad:\xff\xfe:end\r\nEND\r\n")
