"""The sandbox the suite's runs are confined to.

Runs are sandboxed by default and see only the system directories and their own roots. The
suite's commands also run its helper scripts (under the repository) with its Python (whose
installation may live outside /usr, e.g. under ~/.pyenv): both are readable roots of every
sandbox the suite starts — read-only, like any readable root.
"""

from __future__ import annotations

import os
import sys
from pathlib import Path
from typing import Final

from maka_runtime.resource.core.sandbox import SandboxSettings

REPO_ROOT: Final = Path(__file__).resolve().parents[2]

#: Read-only roots the suite's runs need besides their own.
READABLE_ROOTS: Final = tuple(
    dict.fromkeys(str(Path(p).resolve()) for p in (REPO_ROOT, sys.base_prefix, sys.prefix))
)

#: The sandbox settings of in-process hosts.
TEST_SANDBOX: Final = SandboxSettings(readable_roots=READABLE_ROOTS)

#: The same for services started as processes.
ENV: Final = {"MAKA_SANDBOX_READABLE_ROOTS": os.pathsep.join(READABLE_ROOTS)}
