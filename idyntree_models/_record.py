"""Dataclasses whose repr and == are written once, for all of them (`record`, `Record`).

dataclass generates and compiles an __init__, a __repr__ and an __eq__ for every class when its
module is imported; for the model's and the formats' classes that was ~14 ms of the converter's
start-up (a whole conversion of iCubGenova02 takes ~150 ms).  A record keeps the generated
__init__ (it runs for every object a load makes) and shares one repr and one ==, which only a
debugger or a test calls.  Their rules are dataclass's: the fields marked repr, in order; equal
when of the same class with equal tuples of the fields marked compare; mutable, so unhashable.
"""

from __future__ import annotations

from dataclasses import dataclass, fields
from typing import TypeVar

T = TypeVar("T")


class Record:
    """The shared repr and == of a `record` class (which must derive from this)."""

    __slots__ = ()

    def __repr__(self) -> str:
        shown = ", ".join(f"{f.name}={getattr(self, f.name)!r}" for f in fields(self) if f.repr)
        return f"{type(self).__qualname__}({shown})"

    def __eq__(self, other: object) -> bool:
        if other.__class__ is not self.__class__:
            return NotImplemented
        return _compared(self) == _compared(other)

    __hash__ = None  # type: ignore[assignment]  # as dataclass's eq=True without frozen


def _compared(obj: Record) -> tuple:
    return tuple(getattr(obj, f.name) for f in fields(obj) if f.compare)


def record(cls: type[T]) -> type[T]:
    """`dataclass` without a generated __repr__ and __eq__: the class gets Record's."""
    if not issubclass(cls, Record):
        raise TypeError(f"{cls.__qualname__} must derive from Record to be a record")
    return dataclass(cls, repr=False, eq=False)


__all__ = ["Record", "record"]
