"""One page of a session's interaction requests (``ListInteractions``), oldest first."""

from __future__ import annotations

from collections.abc import Sequence

from maka_runtime.kernel.core.interactions.authority import HostedInteractionAuthority
from maka_runtime.kernel.core.interactions.owners import InteractionAuthority
from maka_runtime.kernel.core.session import decode_page_token, encode_page_token
from maka_runtime.kernel.core.sizes import fitting
from maka_runtime.kernel.core.store import InteractionPage, InteractionRecord


def interaction_page(
    records: Sequence[InteractionRecord], *, page_token: str, limit: int, max_bytes: int
) -> InteractionPage:
    """The records after *page_token*, at most *limit* and *max_bytes*; a page cut short
    carries a ``next_page_token``."""
    cursor = decode_page_token(page_token, kind="interactions") if page_token else None
    ordered = sorted(records, key=lambda r: (r.created_at, r.request_id))
    if cursor is not None:
        ordered = [r for r in ordered if (r.created_at, r.request_id) > cursor]
    page = fitting(ordered[:limit], max_bytes)
    more = len(ordered) > len(page)
    token = (
        encode_page_token(page[-1].created_at, page[-1].request_id, kind="interactions")
        if more and page
        else ""
    )
    return InteractionPage(interactions=tuple(page), next_page_token=token)


async def interactions_of(
    authority: InteractionAuthority | None,
    session_id: str,
    *,
    pending_only: bool,
    page_token: str,
    limit: int,
    max_bytes: int,
) -> InteractionPage:
    """One page of the session's requests as the hosted authority recorded them (none without
    one)."""
    if not isinstance(authority, HostedInteractionAuthority):
        return InteractionPage(interactions=())
    return interaction_page(
        await authority.store.list_interactions(session_id, pending_only=pending_only),
        page_token=page_token,
        limit=limit,
        max_bytes=max_bytes,
    )
