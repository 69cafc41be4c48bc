"""Name -> factory registries, so configs can pick components by name."""
from __future__ import annotations

import difflib
import inspect
from typing import Any, Callable


class Registry:
    def __init__(self, kind: str):
        self.kind = kind
        self._items: dict[str, Callable] = {}
        self._aliases: dict[str, str] = {}

    def register(self, name: str | None = None, aliases: tuple[str, ...] = ()):
        def deco(obj):
            key = name or obj.__name__.lower()
            if key in self._items:
                raise KeyError(f"{self.kind} {key!r} registered twice")
            self._items[key] = obj
            for alias in aliases:
                self._aliases[alias] = key
            return obj

        return deco

    def resolve(self, name: str) -> str:
        name = self._aliases.get(name, name)
        if name not in self._items:
            close = difflib.get_close_matches(name, list(self._items), n=3)
            hint = f"; did you mean {close}?" if close else ""
            raise KeyError(f"unknown {self.kind} {name!r} (known: {sorted(self._items)}){hint}")
        return name

    def get(self, name: str) -> Callable:
        return self._items[self.resolve(name)]

    def build(self, name: str, *args, **kwargs) -> Any:
        factory = self.get(name)
        accepted = _accepted_kwargs(factory)
        if accepted is not None:
            unknown = set(kwargs) - accepted
            if unknown:
                raise TypeError(f"{self.kind} {name!r} got unexpected options {sorted(unknown)}")
        return factory(*args, **kwargs)

    def names(self) -> list[str]:
        return sorted(self._items)

    def __contains__(self, name: str) -> bool:
        return self._aliases.get(name, name) in self._items

    def __repr__(self) -> str:
        return f"Registry({self.kind!r}, {self.names()})"


def _accepted_kwargs(factory: Callable) -> set[str] | None:
    target = factory.__init__ if inspect.isclass(factory) else factory
    try:
        sig = inspect.signature(target)
    except (TypeError, ValueError):
        return None
    if any(p.kind is inspect.Parameter.VAR_KEYWORD for p in sig.parameters.values()):
        return None
    return {n for n, p in sig.parameters.items() if n != "self"}


MODELS = Registry("model")
DATASETS = Registry("dataset")
TRANSFORMS = Registry("transform")
LOSSES = Registry("loss")
OPTIMIZERS = Registry("optimizer")
SCHEDULES = Registry("schedule")
CALLBACKS = Registry("callback")
METRICS = Registry("metric")
