"""Config loading: a YAML file may name a `_base_` file it extends; `--opt a.b=v` overrides."""
from __future__ import annotations

import copy
from pathlib import Path

import yaml


class AttrDict(dict):
    __slots__ = ()

    def __getattr__(self, item):
        if item not in self:
            raise AttributeError(f"no config entry {item!r}")
        return self[item]

    def __setattr__(self, item, value):
        self[item] = value

    @classmethod
    def wrap(cls, obj):
        if isinstance(obj, dict):
            return cls({k: cls.wrap(v) for k, v in obj.items()})
        if isinstance(obj, list):
            return [cls.wrap(v) for v in obj]
        return obj


def merge(a: dict, b: dict) -> dict:
    out = copy.deepcopy(a)
    for k, v in b.items():
        out[k] = merge(out[k], v) if isinstance(v, dict) and isinstance(out.get(k), dict) else copy.deepcopy(v)
    return out


def read(path: Path) -> dict:
    data = yaml.safe_load(Path(path).read_text()) or {}
    base = data.pop("_base_", None)
    return merge(read(Path(path).parent / base), data) if base else data


def load(path, opts=()) -> AttrDict:
    data = read(Path(path))
    for opt in opts:
        key, sep, value = opt.partition("=")
        if not sep:
            raise ValueError(f"override {opt!r} is not key=value")
        parts = key.split(".")
        node = data
        for p in parts[:-1]:
            node = node.setdefault(p, {})
        node[parts[-1]] = yaml.safe_load(value)
    return AttrDict.wrap(data)
