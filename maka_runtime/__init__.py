"""Maka Runtime: the kernel and resource services and their shared plumbing."""

from maka_runtime.common import codecache as _codecache

# Before any module of the package defines a dataclass (see the module's docstring).
_codecache.install()
