"""Plumbing shared by both services: storage roots, configuration, the gRPC server shell.

Neither service's domain core imports anything here except :mod:`maka_runtime.common.storage_root`.
"""
