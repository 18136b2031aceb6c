"""A client that takes a controller lease and then waits to be killed.

Usage: lease_holder.py ADDRESS SESSION REF. Opens a connection on its own channel, acquires the
controller lease of REF as controller "holder", prints the connection id (a sentinel), then
blocks until stdin closes: a test kills it with SIGKILL, so it says goodbye to nobody.
"""

import sys

import grpc
from maka.resource.v1 import resource_pb2 as pb
from maka.resource.v1 import resource_pb2_grpc

address, session_id, ref = sys.argv[1:4]
with grpc.insecure_channel(address) as channel:
    stub = resource_pb2_grpc.ResourceServiceStub(channel)
    connection = stub.OpenConnection(pb.OpenConnectionRequest(client_name="lease-holder"))
    connection_id = next(connection).connection_id
    stub.AcquireController(
        pb.AcquireControllerRequest(
            session_id=session_id, ref=ref, controller_id="holder", connection_id=connection_id
        ),
        timeout=20,
    )
    print(connection_id, flush=True)
    sys.stdin.read()
