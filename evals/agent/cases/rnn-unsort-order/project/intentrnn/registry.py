"""Registries so the config can pick encoders and heads by name."""
from __future__ import annotations

from typing import Callable


class Registry:
    def __init__(self, kind: str):
        self.kind = kind
        self._items: dict[str, Callable] = {}

    def register(self, name: str):
        def decorator(obj: Callable) -> Callable:
            self._items[name] = obj
            return obj

        return decorator

    def get(self, name: str) -> Callable:
        if name not in self._items:
            raise KeyError(f"unknown {self.kind} {name!r}; known: {', '.join(sorted(self._items))}")
        return self._items[name]

    def build(self, name: str, *args, **kwargs):
        return self.get(name)(*args, **kwargs)


ENCODERS = Registry("encoder")
POOLERS = Registry("pooler")
