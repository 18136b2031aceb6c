"""An answer built once per object: for the pages the stores keep and serve again as the very
same object while nothing they show has changed."""

from __future__ import annotations

from collections.abc import Callable
from typing import Generic, TypeVar

__all__ = ["AnswersByObject"]

Item = TypeVar("Item")
Answer = TypeVar("Answer")


class AnswersByObject(Generic[Item, Answer]):
    """The answer *build* makes for an object, kept for that very object (by its ``id()``, the
    object held beside the answer so the id cannot be reused) when *keep* says so; another
    object, even an equal one, gets its own. At most *limit* answers, the oldest forgotten
    first; 0 keeps none. A kept answer is shared between calls: nothing may change it."""

    def __init__(
        self,
        limit: int,
        build: Callable[[Item], Answer],
        keep: Callable[[Item], bool] = lambda _item: True,
    ) -> None:
        self._limit = limit
        self._build = build
        self._keep = keep
        self._built: dict[int, tuple[Item, Answer]] = {}

    def __len__(self) -> int:
        return len(self._built)

    def of(self, item: Item) -> Answer:
        found = self._built.get(id(item))
        if found is not None and found[0] is item:
            return found[1]
        answer = self._build(item)
        if self._limit > 0 and self._keep(item):
            if len(self._built) >= self._limit:
                del self._built[next(iter(self._built))]
            self._built[id(item)] = (item, answer)
        return answer
