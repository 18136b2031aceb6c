"""Backends the kernel can build per session."""
