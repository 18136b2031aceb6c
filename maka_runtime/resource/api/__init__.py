"""gRPC adapters of the resource service: convert protobuf and domain, map errors."""
