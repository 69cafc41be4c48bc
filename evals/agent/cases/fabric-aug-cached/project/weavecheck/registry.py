"""Name -> factory registries, so configs can pick components by name."""
from __future__ import annotations


class Registry:
    def __init__(self, kind: str):
        self.kind = kind
        self._items = {}

    def register(self, name: str):
        def deco(obj):
            if name in self._items:
                raise KeyError(f"{self.kind} {name!r} registered twice")
            self._items[name] = obj
            return obj
        return deco

    def get(self, name: str):
        try:
            return self._items[name]
        except KeyError as exc:
            known = ", ".join(sorted(self._items))
            raise KeyError(f"unknown {self.kind} {name!r} (known: {known})") from exc

    def build(self, name: str, *args, **kwargs):
        return self.get(name)(*args, **kwargs)

    def names(self):
        return sorted(self._items)


MODELS = Registry("model")
DATASETS = Registry("dataset")
TRANSFORMS = Registry("transform")
LOSSES = Registry("loss")
SCHEDULES = Registry("schedule")
