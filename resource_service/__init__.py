"""Maka Runtime resource service."""
