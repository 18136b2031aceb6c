"""Maka Runtime: the kernel and resource services and their shared plumbing."""
