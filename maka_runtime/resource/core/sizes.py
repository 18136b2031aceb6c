"""Run sizes on the wire: shared with the kernel (:mod:`maka_runtime.common.sizes`)."""

from __future__ import annotations

from typing import Final

from maka_runtime.common.sizes import FIELD_OVERHEAD, OBJECT_OVERHEAD, fitting, wire_size

__all__ = ["DEFAULT_PAGE_BYTES", "FIELD_OVERHEAD", "OBJECT_OVERHEAD", "fitting", "wire_size"]

#: Below a default client's 4 MiB receive limit with room for framing.
DEFAULT_PAGE_BYTES: Final = 2 * 1024 * 1024
