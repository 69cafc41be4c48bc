"""YAML configuration with `_base_` inheritance and `--set a.b=value` overrides."""
from __future__ import annotations

import copy
from pathlib import Path

import yaml


class Cfg(dict):
    """Dictionary with attribute access, used for every config section."""

    def __getattr__(self, key):
        try:
            return self[key]
        except KeyError as err:
            raise AttributeError(key) from err

    def __setattr__(self, key, value):
        self[key] = value


def _wrap(value):
    if isinstance(value, dict):
        return Cfg({k: _wrap(v) for k, v in value.items()})
    if isinstance(value, list):
        return [_wrap(v) for v in value]
    return value


def _deep_update(base: dict, other: dict) -> dict:
    merged = copy.deepcopy(base)
    for key, value in other.items():
        if isinstance(value, dict) and isinstance(merged.get(key), dict):
            merged[key] = _deep_update(merged[key], value)
        else:
            merged[key] = copy.deepcopy(value)
    return merged


def _load_yaml(path: Path) -> dict:
    raw = yaml.safe_load(path.read_text()) or {}
    parent = raw.pop("_base_", None)
    if parent is not None:
        raw = _deep_update(_load_yaml(path.parent / parent), raw)
    return raw


def load_config(path, overrides=()):
    raw = _load_yaml(Path(path))
    for item in overrides:
        key, _, text = item.partition("=")
        if not _:
            raise ValueError(f"bad override {item!r}, expected key=value")
        node = raw
        *head, last = key.split(".")
        for part in head:
            node = node.setdefault(part, {})
        node[last] = yaml.safe_load(text)
    return _wrap(raw)
