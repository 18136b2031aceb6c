"""Misbehaving programs the tests run as real shell commands."""
