"""Experiment configuration: YAML files (with an optional `_base_` file they extend) plus
dotted command-line overrides (`--set optim.lr=0.01`). Values are reachable as attributes."""
from __future__ import annotations

import copy
from pathlib import Path

import yaml


class Node(dict):
    """A dict whose keys can also be read as attributes (cfg.optim.lr)."""

    def __getattr__(self, name):
        try:
            return self[name]
        except KeyError as exc:
            raise AttributeError(f"config has no key {name!r}") from exc

    def __setattr__(self, name, value):
        self[name] = value


def _to_node(obj):
    if isinstance(obj, dict):
        return Node({k: _to_node(v) for k, v in obj.items()})
    if isinstance(obj, list):
        return [_to_node(v) for v in obj]
    return obj


def _merge(base: dict, update: dict) -> dict:
    out = copy.deepcopy(base)
    for key, value in update.items():
        if isinstance(value, dict) and isinstance(out.get(key), dict):
            out[key] = _merge(out[key], value)
        else:
            out[key] = copy.deepcopy(value)
    return out


def _read(path: Path) -> dict:
    data = yaml.safe_load(path.read_text()) or {}
    base = data.pop("_base_", None)
    if base:
        data = _merge(_read(path.parent / base), data)
    return data


def apply_override(data: dict, item: str) -> None:
    if "=" not in item:
        raise ValueError(f"override must look like key=value, got {item!r}")
    dotted, raw = item.split("=", 1)
    *parents, leaf = dotted.strip().split(".")
    node = data
    for part in parents:
        node = node.setdefault(part, {})
    if leaf not in node and not isinstance(node, dict):
        raise KeyError(dotted)
    node[leaf] = yaml.safe_load(raw)


def load_config(path, overrides=()) -> Node:
    data = _read(Path(path))
    for item in overrides:
        apply_override(data, item)
    return _to_node(data)


def to_plain(cfg):
    if isinstance(cfg, dict):
        return {k: to_plain(v) for k, v in cfg.items()}
    if isinstance(cfg, list):
        return [to_plain(v) for v in cfg]
    return cfg
