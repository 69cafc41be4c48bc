"""Nested YAML configuration with `inherit:` chains and `key.sub=value` overrides."""
from __future__ import annotations

import copy
from pathlib import Path
from types import SimpleNamespace

import yaml


def _deep_update(base: dict, new: dict) -> dict:
    out = copy.deepcopy(base)
    for key, value in new.items():
        if isinstance(value, dict) and isinstance(out.get(key), dict):
            out[key] = _deep_update(out[key], value)
        else:
            out[key] = value
    return out


def read_yaml(path: Path) -> dict:
    data = yaml.safe_load(path.read_text()) or {}
    parent = data.pop("inherit", None)
    if parent is not None:
        data = _deep_update(read_yaml(path.parent / parent), data)
    return data


def _namespace(obj):
    if isinstance(obj, dict):
        return SimpleNamespace(**{k: _namespace(v) for k, v in obj.items()})
    return obj


def from_dict(data: dict) -> SimpleNamespace:
    return _namespace(copy.deepcopy(data))


def to_dict(ns) -> dict:
    if isinstance(ns, SimpleNamespace):
        return {k: to_dict(v) for k, v in vars(ns).items()}
    return ns


def load(path: str, overrides=()) -> SimpleNamespace:
    data = read_yaml(Path(path))
    for item in overrides:
        key, sep, raw = item.partition("=")
        if not sep:
            raise ValueError(f"override {item!r} is not key=value")
        *parents, leaf = key.split(".")
        node = data
        for name in parents:
            if name not in node:
                raise KeyError(f"unknown config section {name!r} in {item!r}")
            node = node[name]
        if leaf not in node:
            raise KeyError(f"unknown config key {key!r}")
        node[leaf] = yaml.safe_load(raw)
    return _namespace(data)
