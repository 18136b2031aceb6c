"""Save the code both services' dataclasses compile beside the installed package's bytecode
(maka_runtime/common/codecache.py), so that no start of an image compiles it. The image build
runs this once, as the owner of the installed files; exit 1 if the file is not there after."""

from __future__ import annotations

import os
import sys

import maka_runtime.kernel.server
import maka_runtime.resource.server  # noqa: F401
from maka_runtime.common import codecache

codecache.save()
file = codecache.path()
if file is None or not os.path.isfile(file):
    sys.exit(f"no dataclass code cache was written ({file})")
print(f"dataclass code cache: {file} ({os.path.getsize(file)} bytes)")
