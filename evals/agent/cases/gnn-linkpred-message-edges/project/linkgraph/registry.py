"""Name -> factory registries so configs can pick components by string."""


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
        if name not in self._items:
            known = ", ".join(sorted(self._items))
            raise KeyError(f"unknown {self.kind} {name!r} (known: {known})")
        return self._items[name]

    def names(self):
        return sorted(self._items)


ENCODERS = Registry("encoder")
DECODERS = Registry("decoder")
GRAPHS = Registry("graph")
