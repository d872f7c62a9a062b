"""recipelint.records against the stdlib's dataclasses: each class is built by both, and every
behaviour recipelint relies on must be the same."""

from __future__ import annotations

import copy
import dataclasses
import pickle
from collections.abc import Callable
from typing import Any

import pytest

from recipelint import records

Maker = Callable[..., Any]


def point(dataclass: Maker, field: Maker, **options: Any) -> Any:
    @dataclass(**options)
    class Point:
        """A point."""

        x: int
        y: int = 0
        tags: list[str] = field(default_factory=list)
        note: str = field(default="", repr=False, compare=False)
        derived: int = field(init=False, default=-1)

        def __post_init__(self) -> None:
            object.__setattr__(self, "derived", self.x + self.y)

    return Point


class Family:
    def __init__(self, **options: Any) -> None:
        self.theirs = point(dataclasses.dataclass, dataclasses.field, **options)
        self.ours = point(records.dataclass, records.field, **options)

    def both(self, *args: Any, **kwargs: Any) -> tuple[Any, Any]:
        return self.theirs(*args, **kwargs), self.ours(*args, **kwargs)


OPTIONS = [{}, {"frozen": True}, {"eq": False}, {"repr": False}, {"frozen": True, "eq": False}]


@pytest.mark.parametrize("options", OPTIONS, ids=str)
def test_init_defaults_factories_post_init_and_repr_match(options: dict[str, Any]) -> None:
    family = Family(**options)
    cases: list[tuple[tuple[Any, ...], dict[str, Any]]] = [
        ((1,), {}),
        ((1, 2), {}),
        ((1,), {"y": 5, "tags": ["a"], "note": "n"}),
        ((), {"x": 3}),
    ]
    for args, kwargs in cases:
        theirs, ours = family.both(*args, **kwargs)
        assert vars(theirs) == vars(ours)
        if options.get("repr", True):
            assert repr(theirs) == repr(ours)
            assert repr(ours).endswith(f".Point(x={ours.x}, y={ours.y}, tags={ours.tags!r}, derived={ours.derived})")
    first, second = family.ours(1), family.ours(1)
    assert first.tags is not second.tags  # a factory runs per instance
    with pytest.raises(TypeError):
        family.ours(1, derived=3)  # init=False
    with pytest.raises(TypeError):
        family.ours()
    assert family.ours.__match_args__ == family.theirs.__match_args__ == ("x", "y", "tags", "note")


@pytest.mark.parametrize("options", OPTIONS, ids=str)
def test_equality_and_hashing_match(options: dict[str, Any]) -> None:
    family = Family(**options)
    pairs = [family.both(1, 2, note="a"), family.both(1, 2, note="b"), family.both(2, 2)]
    for left_theirs, left_ours in pairs:
        for right_theirs, right_ours in pairs:
            assert (left_theirs == right_theirs) == (left_ours == right_ours)
            assert (left_theirs != right_theirs) == (left_ours != right_ours)
    theirs, ours = pairs[0]
    assert (ours == (1, 2)) is False and ours.__eq__(object()) is NotImplemented or not options.get("eq", True)
    hashable = type(theirs).__hash__ is not None
    assert (type(ours).__hash__ is not None) == hashable
    if hashable and options.get("frozen") and options.get("eq", True):
        list_free = [family.ours(1, 2, tags=()), family.ours(1, 2, tags=(), note="other")]
        assert hash(list_free[0]) == hash(list_free[1]) == hash(family.theirs(1, 2, tags=()))


@pytest.mark.parametrize("options", OPTIONS, ids=str)
def test_frozen_instances_refuse_assignment_like_dataclasses(options: dict[str, Any]) -> None:
    theirs, ours = Family(**options).both(1)
    for instance, error in ((theirs, dataclasses.FrozenInstanceError), (ours, records.FrozenInstanceError)):
        if options.get("frozen"):
            with pytest.raises(error):
                instance.x = 5
            with pytest.raises(AttributeError):
                del instance.y
        else:
            instance.x = 5
            assert instance.x == 5


def test_copies_pickles_and_replace_keep_the_fields() -> None:
    frozen: Any = records.dataclass(frozen=True)(type("Frozen", (), {"__annotations__": {"a": "int", "b": "str"}, "b": "x"}))
    original = frozen(1)
    assert copy.copy(original) == copy.deepcopy(original) == original
    changed = records.replace(original, b="y")
    assert (changed.a, changed.b, original.b) == (1, "y", "x")
    family = Family(frozen=True)
    ours = family.ours(1, 2, tags=["t"], note="n")
    again = records.replace(ours, y=7)
    assert (again.x, again.y, again.tags, again.note, again.derived) == (1, 7, ["t"], "n", 8)
    with pytest.raises(ValueError, match="init=False"):
        records.replace(ours, derived=1)
    assert [spec.name for spec in records.fields(ours)] == [spec.name for spec in dataclasses.fields(family.theirs)]


@records.dataclass(frozen=True)
class Pickled:
    name: str
    sizes: tuple[int, ...] = ()


def test_instances_cross_processes() -> None:
    """The parallel runner sends results between processes with pickle."""
    value = Pickled("a", (1, 2))
    assert pickle.loads(pickle.dumps(value)) == value


def test_subclass_fields_follow_the_base_fields() -> None:
    @records.dataclass
    class Base:
        a: int
        b: int = 1

    @records.dataclass
    class Child(Base):
        c: int = 2

    assert vars(Child(0, c=5)) == {"a": 0, "b": 1, "c": 5}
    assert repr(Child(0)).endswith(".Child(a=0, b=1, c=2)")


def test_what_dataclasses_refuse_is_refused() -> None:
    with pytest.raises(ValueError, match="mutable default"):
        records.dataclass(type("Bad", (), {"__annotations__": {"a": "list[int]"}, "a": []}))
    with pytest.raises(TypeError, match="follows default"):
        records.dataclass(type("Order", (), {"__annotations__": {"a": "int", "b": "int"}, "a": 1}))
    with pytest.raises(ValueError, match="both default and default_factory"):
        records.field(default=1, default_factory=list)  # type: ignore[call-overload]
    with pytest.raises(TypeError, match="ClassVar"):
        records.dataclass(type("Var", (), {"__annotations__": {"a": "ClassVar[int]"}}))


def test_methods_a_class_defines_are_kept() -> None:
    @records.dataclass
    class Custom:
        a: int

        def __repr__(self) -> str:
            return "custom"

    assert repr(Custom(1)) == "custom"
