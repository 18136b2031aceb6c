"""Helpers shared by the test suites: real service processes on loopback ports."""
