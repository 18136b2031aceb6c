"""gRPC adapters of the kernel service: convert protobuf and domain, map errors."""
