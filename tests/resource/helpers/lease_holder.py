"""A client that takes a controller lease and then waits to be killed.

Usage: lease_holder.py ADDRESS SESSION REF. Opens a connection on its own channel, acquires the
controller lease of REF as controller "holder", prints the connection id (a sentinel), then
blocks until stdin closes: a test kills it with SIGKILL, so it says goodbye to nobody. Its
calls carry the suite's token (``MAKA_TOKEN``, from tests.support.auth).
"""

import os
import sys

import grpc
from maka_runtime_proto.resource.v1 import resource_pb2 as pb
from maka_runtime_proto.resource.v1 import resource_pb2_grpc

address, session_id, ref = sys.argv[1:4]
metadata = (("authorization", f"Bearer {os.environ['MAKA_TOKEN']}"),)
with grpc.insecure_channel(address) as channel:
    stub = resource_pb2_grpc.ResourceServiceStub(channel)
    connection = stub.OpenConnection(
        pb.OpenConnectionRequest(client_name="lease-holder"), metadata=metadata
    )
    connection_id = next(connection).connection_id
    stub.AcquireController(
        pb.AcquireControllerRequest(
            session_id=session_id, ref=ref, controller_id="holder", connection_id=connection_id
        ),
        timeout=20,
        metadata=metadata,
    )
    print(connection_id, flush=True)
    sys.stdin.read()
