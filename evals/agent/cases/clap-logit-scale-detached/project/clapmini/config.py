"""Configs are YAML files; `_base_: file.yaml` pulls in defaults, `-o key.sub=value` overrides."""
from __future__ import annotations

import copy
from pathlib import Path
from types import SimpleNamespace

import yaml


def _merge(dst: dict, src: dict) -> dict:
    dst = copy.deepcopy(dst)
    for k, v in src.items():
        if isinstance(v, dict) and isinstance(dst.get(k), dict):
            dst[k] = _merge(dst[k], v)
        else:
            dst[k] = copy.deepcopy(v)
    return dst


def _read(path: Path) -> dict:
    data = yaml.safe_load(path.read_text()) or {}
    base = data.pop("_base_", None)
    return _merge(_read(path.parent / base), data) if base else data


def _ns(obj):
    if isinstance(obj, dict):
        return SimpleNamespace(**{k: _ns(v) for k, v in obj.items()})
    if isinstance(obj, list):
        return [_ns(v) for v in obj]
    return obj


def as_dict(ns):
    if isinstance(ns, SimpleNamespace):
        return {k: as_dict(v) for k, v in vars(ns).items()}
    if isinstance(ns, list):
        return [as_dict(v) for v in ns]
    return ns


def load_config(path, overrides=()):
    data = _read(Path(path))
    for item in overrides:
        key, eq, value = item.partition("=")
        if not eq:
            raise ValueError(f"override {item!r} must be key=value")
        node, parts = data, key.split(".")
        for p in parts[:-1]:
            node = node.setdefault(p, {})
        node[parts[-1]] = yaml.safe_load(value)
    return _ns(data)
