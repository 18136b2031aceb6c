"""Maka Runtime kernel service."""
