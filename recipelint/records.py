"""`dataclass`, `field` and `replace` with the stdlib's meaning, for the subset recipelint uses,
at a tenth of the cost of building a class.

Why not `dataclasses`: Python 3.11 compiles each generated method with its own `exec` (six for a
frozen class, 0.3-0.6 ms a class on a 2-core VM) and imports `inspect`. `recipelint check` of one
WeNet recipe builds 56 classes: that was ~35 ms of a 120 ms run. Here a class's methods come from
one `exec`. (Python 3.13's dataclasses do the same; this module can go when 3.13 is the oldest
Python supported.)

Supported, as `dataclasses` does it: fields from the class's annotations in order, a base's
fields first; defaults; `field(default=, default_factory=, init=, repr=, compare=)`;
`__post_init__`; `eq` (same class, equal fields; an unfrozen class with eq is unhashable);
`frozen=True` (assigning or deleting a field raises `FrozenInstanceError`, an `AttributeError`;
instances hash by their compared fields); `repr`; `__match_args__`. Methods a class defines itself
are kept. Not supported (unused here): `ClassVar`/`InitVar` fields, `order`, `slots`, `kw_only`,
`unsafe_hash`, `dataclasses.fields()` and `asdict()` on these classes (use `fields` here).
`tests/test_records.py` holds each supported behaviour to the stdlib's.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any, TypeVar, overload

if TYPE_CHECKING:
    from typing_extensions import dataclass_transform
else:

    def dataclass_transform(**_: object) -> Callable[[Any], Any]:
        return lambda decorated: decorated


_T = TypeVar("_T")


class _Missing:
    def __repr__(self) -> str:
        return "MISSING"


MISSING: Any = _Missing()


class FrozenInstanceError(AttributeError):
    """Assignment to a field of a frozen instance."""


class Field:
    """One field: its name, default or default factory, and whether __init__, repr and eq use it."""

    __slots__ = ("compare", "default", "default_factory", "init", "name", "repr")

    def __init__(self, default: Any, default_factory: Any, init: bool, repr: bool, compare: bool) -> None:
        if default is not MISSING and default_factory is not MISSING:
            raise ValueError("cannot specify both default and default_factory")
        self.name = ""
        self.default, self.default_factory = default, default_factory
        self.init, self.repr, self.compare = init, repr, compare


@overload
def field(*, default: _T, init: bool = True, repr: bool = True, compare: bool = True) -> _T: ...
@overload
def field(*, default_factory: Callable[[], _T], init: bool = True, repr: bool = True, compare: bool = True) -> _T: ...
@overload
def field(*, init: bool = True, repr: bool = True, compare: bool = True) -> Any: ...
def field(*, default: Any = MISSING, default_factory: Any = MISSING, init: bool = True, repr: bool = True, compare: bool = True) -> Any:
    return Field(default, default_factory, init, repr, compare)


@overload
@dataclass_transform(field_specifiers=(field,))
def dataclass(cls: type[_T], /) -> type[_T]: ...
@overload
def dataclass(*, frozen: bool = False, eq: bool = True, repr: bool = True) -> Callable[[type[_T]], type[_T]]: ...
def dataclass(cls: Any = None, /, *, frozen: bool = False, eq: bool = True, repr: bool = True) -> Any:
    """Make `cls` a data class: generated __init__, and __repr__, __eq__, __hash__ as asked."""

    def wrap(cls: type[_T]) -> type[_T]:
        return _build(cls, frozen=frozen, eq=eq, repr=repr)

    return wrap if cls is None else wrap(cls)


def fields(class_or_instance: Any) -> tuple[Field, ...]:
    cls: Any = class_or_instance if isinstance(class_or_instance, type) else type(class_or_instance)
    return tuple(cls.__record_fields__.values())


def replace(obj: _T, /, **changes: Any) -> _T:
    """A copy of `obj` with `changes` (fields not passed to __init__ cannot be changed)."""
    for name, spec in type(obj).__record_fields__.items():  # type: ignore[attr-defined]
        if not spec.init:
            if name in changes:
                raise ValueError(f"field {name} is declared with init=False, it cannot be specified with replace()")
        elif name not in changes:
            changes[name] = getattr(obj, name)
    return type(obj)(**changes)


def _collect(cls: type) -> dict[str, Field]:
    found: dict[str, Field] = {}
    for base in reversed(cls.__mro__[1:]):
        found.update(getattr(base, "__record_fields__", {}))
    for name, annotation in cls.__dict__.get("__annotations__", {}).items():
        if str(annotation).startswith(("ClassVar", "typing.ClassVar", "InitVar", "dataclasses.InitVar")):
            raise TypeError(f"{cls.__qualname__}.{name}: ClassVar and InitVar fields are not supported")
        value = cls.__dict__.get(name, MISSING)
        spec = value if isinstance(value, Field) else Field(value, MISSING, True, True, True)
        if spec.default is not MISSING and type(spec.default).__hash__ is None:
            raise ValueError(f"mutable default {type(spec.default)} for field {name} is not allowed: use default_factory")
        spec.name = name
        found[name] = spec
        if isinstance(value, Field):  # the class attribute becomes the default, as with dataclasses
            if spec.default is MISSING:
                delattr(cls, name)
            else:
                setattr(cls, name, spec.default)
    return found


def _check_order(specs: dict[str, Field]) -> None:
    defaulted = False
    for name, spec in specs.items():
        if not spec.init:
            continue
        if spec.default is not MISSING or spec.default_factory is not MISSING:
            defaulted = True
        elif defaulted:
            raise TypeError(f"non-default argument {name!r} follows default argument")


def _init_source(cls: type, specs: dict[str, Field], frozen: bool) -> str:
    params: list[str] = []
    body: list[str] = []
    set_ = "__set(self, {0!r}, {1})" if frozen else "self.{0} = {1}"
    for name, spec in specs.items():
        if spec.init and spec.default_factory is not MISSING:
            params.append(f"{name}=__FACTORY")
            body.append(set_.format(name, f"__factory_{name}() if {name} is __FACTORY else {name}"))
        elif spec.init:
            params.append(name if spec.default is MISSING else f"{name}=__default_{name}")
            body.append(set_.format(name, name))
        elif spec.default_factory is not MISSING:
            body.append(set_.format(name, f"__factory_{name}()"))
        elif spec.default is not MISSING:
            body.append(set_.format(name, f"__default_{name}"))
    if hasattr(cls, "__post_init__"):
        body.append("self.__post_init__()")
    return "\n    ".join([f"def __init__({', '.join(['self', *params])}):", *(body or ["pass"])])


def _source(cls: type, method: str, specs: dict[str, Field], frozen: bool) -> str:
    compared = "".join(f"self.{name}," for name, spec in specs.items() if spec.compare)
    if method == "__init__":
        return _init_source(cls, specs, frozen)
    if method == "__repr__":
        shown = ", ".join(f"{name}={{self.{name}!r}}" for name, spec in specs.items() if spec.repr)
        return f'def __repr__(self):\n    return f"{{self.__class__.__qualname__}}({shown})"'
    if method == "__eq__":
        other = compared.replace("self.", "other.")
        return (
            "def __eq__(self, other):\n    if other.__class__ is self.__class__:\n"
            f"        return ({compared}) == ({other})\n    return NotImplemented"
        )
    return f"def __hash__(self):\n    return hash(({compared}))"


def _compiled(cls: type, method: str, specs: dict[str, Field], frozen: bool) -> Callable[..., Any]:
    namespace: dict[str, Any] = {"__set": object.__setattr__, "__FACTORY": MISSING}
    for name, spec in specs.items():
        namespace[f"__default_{name}"] = spec.default
        namespace[f"__factory_{name}"] = spec.default_factory
    made: dict[str, Any] = {}
    exec(_source(cls, method, specs, frozen), namespace, made)  # noqa: S102 - our own generated method
    function: Callable[..., Any] = made[method]
    function.__qualname__ = f"{cls.__qualname__}.{method}"
    return function


def _deferred(cls: type, method: str, specs: dict[str, Field], frozen: bool) -> Callable[..., Any]:
    """A stand-in that compiles the method on its first call and puts it in its place: most
    classes are built at import and many are never compared, printed or made in a run."""

    def first_call(self: Any, *args: Any, **kwargs: Any) -> Any:
        function = _compiled(cls, method, specs, frozen)
        setattr(cls, method, function)
        return function(self, *args, **kwargs)

    first_call.__qualname__ = f"{cls.__qualname__}.{method}"
    return first_call


def _frozen(cls: Any, names: frozenset[str]) -> dict[str, Callable[..., None]]:
    def __setattr__(self: Any, name: str, value: Any) -> None:
        if type(self) is cls or name in names:
            raise FrozenInstanceError(f"cannot assign to field {name!r}")
        super(cls, self).__setattr__(name, value)

    def __delattr__(self: Any, name: str) -> None:
        if type(self) is cls or name in names:
            raise FrozenInstanceError(f"cannot delete field {name!r}")
        super(cls, self).__delattr__(name)

    return {"__setattr__": __setattr__, "__delattr__": __delattr__}


def _build(cls: type[_T], *, frozen: bool, eq: bool, repr: bool) -> type[_T]:
    specs = _collect(cls)
    _check_order(specs)
    wanted = ["__init__", *(["__repr__"] if repr else []), *(["__eq__"] if eq else []), *(["__hash__"] if eq and frozen else [])]
    methods: dict[str, Callable[..., Any]] = {name: _deferred(cls, name, specs, frozen) for name in wanted}
    if frozen:
        methods.update(_frozen(cls, frozenset(specs)))
    for name, method in methods.items():
        if name not in cls.__dict__:  # a method the class defines itself is kept
            setattr(cls, name, method)
    if eq and not frozen and "__hash__" not in cls.__dict__:
        cls.__hash__ = None  # type: ignore[assignment]
    cls.__record_fields__ = specs  # type: ignore[attr-defined]
    cls.__match_args__ = tuple(name for name, spec in specs.items() if spec.init)  # type: ignore[attr-defined,misc]
    return cls
