"""ListSessions over the wire while its pages are kept (core/session_pages.py, the API's
PageProtos): the answer asked again is the one built before, and a write is seen at once."""

from __future__ import annotations

from maka_runtime_proto.kernel.v1 import kernel_pb2 as pb

from maka_runtime.kernel.api.session_protos import PageProtos, SessionProtos
from maka_runtime.kernel.core import SessionPage

from ..fakes import spec_header
from .conftest import Server, create_session


async def test_a_kept_page_answers_and_a_write_is_listed_at_once(server: Server) -> None:
    stub = server.stub()
    one = await create_session(stub, name="one")
    request = pb.ListSessionsRequest(page_size=20)
    first = await stub.ListSessions(request)
    assert [s.name for s in first.sessions] == ["one"]
    assert await stub.ListSessions(request) == first
    await create_session(stub, name="two")
    assert [s.name for s in (await stub.ListSessions(request)).sessions] == ["two", "one"]
    await stub.UpdateSession(pb.UpdateSessionRequest(session_id=one.id, name="renamed"))
    assert [s.name for s in (await stub.ListSessions(request)).sessions] == ["two", "renamed"]
    await stub.DeleteSession(pb.DeleteSessionRequest(session_id=one.id))
    assert [s.name for s in (await stub.ListSessions(request)).sessions] == ["two"]


def test_a_page_s_answer_is_built_once_and_the_answers_are_bounded() -> None:
    pages = [SessionPage(sessions=(spec_header(name),)) for name in "abc"]
    protos = PageProtos(2, SessionProtos(8))
    answer = protos.of(pages[0])
    listed = pb.ListSessionsResponse.FromString(answer)  # kept serialized, sent as it is
    assert protos.of(pages[0]) is answer and [s.id for s in listed.sessions] == ["a"]
    equal = SessionPage(sessions=pages[0].sessions)  # another page object: built anew
    assert protos.of(equal) is not answer and protos.of(equal) == answer
    for page in pages:
        protos.of(page)
    assert len(protos) == 2
    none = PageProtos(0, SessionProtos(0))
    assert none.of(pages[0]) is not none.of(pages[0]) and len(none) == 0
