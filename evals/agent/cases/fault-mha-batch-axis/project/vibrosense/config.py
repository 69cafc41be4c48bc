"""Hierarchical experiment configuration.

A config is a tree of :class:`Node` objects (attribute access over a dict). It is built from a YAML
file that may name one or more ``_base_`` files, and then patched by ``--set key.sub=value``
overrides from the command line. Values are parsed with YAML rules, so ``--set optim.lr=3e-4``
gives a float and ``--set data.augment=[jitter,scale]`` a list.
"""
from __future__ import annotations

import copy
import json
from pathlib import Path
from typing import Any, Iterable

import yaml

_BASE_KEY = "_base_"


class Node(dict):
    """A dict whose keys can also be read and written as attributes."""

    def __init__(self, data: dict | None = None):
        super().__init__()
        for key, value in (data or {}).items():
            self[key] = _wrap(value)

    def __getattr__(self, name: str) -> Any:
        try:
            return self[name]
        except KeyError as e:
            raise AttributeError(f"config has no key {name!r} (have: {sorted(self)})") from e

    def __setattr__(self, name: str, value: Any) -> None:
        self[name] = _wrap(value)

    def __deepcopy__(self, memo):
        return Node(copy.deepcopy(dict(self), memo))

    def get_path(self, dotted: str, default: Any = None) -> Any:
        node: Any = self
        for part in dotted.split("."):
            if not isinstance(node, dict) or part not in node:
                return default
            node = node[part]
        return node

    def set_path(self, dotted: str, value: Any, strict: bool = True) -> None:
        parts = dotted.split(".")
        node = self
        for i, part in enumerate(parts[:-1]):
            if part not in node:
                if strict:
                    raise KeyError(f"unknown config section {'.'.join(parts[: i + 1])!r}")
                node[part] = Node()
            node = node[part]
        if strict and parts[-1] not in node:
            raise KeyError(f"unknown config key {dotted!r}")
        node[parts[-1]] = _wrap(value)

    def to_dict(self) -> dict:
        return {k: _unwrap(v) for k, v in self.items()}

    def flat(self, prefix: str = "") -> dict:
        out = {}
        for key, value in self.items():
            name = f"{prefix}{key}"
            if isinstance(value, Node):
                out.update(value.flat(name + "."))
            else:
                out[name] = value
        return out


def _wrap(value: Any) -> Any:
    if isinstance(value, Node):
        return value
    if isinstance(value, dict):
        return Node(value)
    if isinstance(value, list):
        return [_wrap(v) for v in value]
    return value


def _unwrap(value: Any) -> Any:
    if isinstance(value, Node):
        return value.to_dict()
    if isinstance(value, list):
        return [_unwrap(v) for v in value]
    return value


def deep_merge(base: dict, update: dict) -> dict:
    """Recursively merge ``update`` into a copy of ``base``. A dict with ``_replace_: true`` replaces."""
    out = copy.deepcopy(base)
    for key, value in update.items():
        if isinstance(value, dict) and value.get("_replace_"):
            out[key] = {k: v for k, v in value.items() if k != "_replace_"}
        elif isinstance(value, dict) and isinstance(out.get(key), dict):
            out[key] = deep_merge(out[key], value)
        else:
            out[key] = copy.deepcopy(value)
    return out


def _read_yaml(path: Path, seen: tuple = ()) -> dict:
    path = path.resolve()
    if path in seen:
        raise ValueError(f"circular _base_ include: {path}")
    with open(path) as f:
        data = yaml.safe_load(f) or {}
    bases = data.pop(_BASE_KEY, [])
    if isinstance(bases, str):
        bases = [bases]
    merged: dict = {}
    for base in bases:
        merged = deep_merge(merged, _read_yaml(path.parent / base, seen + (path,)))
    return deep_merge(merged, data)


def parse_override(text: str) -> tuple[str, Any]:
    if "=" not in text:
        raise ValueError(f"override must look like key.sub=value, got {text!r}")
    key, raw = text.split("=", 1)
    return key.strip(), yaml.safe_load(raw)


def load_config(path: str | Path, overrides: Iterable[str] = (), strict: bool = True) -> Node:
    cfg = Node(_read_yaml(Path(path)))
    for text in overrides:
        key, value = parse_override(text)
        cfg.set_path(key, value, strict=strict)
    cfg.setdefault("meta", Node())
    cfg.meta.config_path = str(path)
    cfg.meta.overrides = list(overrides)
    return cfg


def dump_config(cfg: Node, path: str | Path) -> None:
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    with open(path, "w") as f:
        yaml.safe_dump(cfg.to_dict(), f, sort_keys=False)


def diff_configs(a: Node, b: Node) -> dict:
    """Keys whose values differ between two configs: {key: (a_value, b_value)}."""
    fa, fb = a.flat(), b.flat()
    keys = sorted(set(fa) | set(fb))
    return {k: (fa.get(k), fb.get(k)) for k in keys if fa.get(k) != fb.get(k) and not k.startswith("meta.")}


def config_hash(cfg: Node) -> str:
    import hashlib

    blob = json.dumps({k: v for k, v in cfg.flat().items() if not k.startswith("meta.")}, sort_keys=True,
                      default=str)
    return hashlib.sha1(blob.encode()).hexdigest()[:10]
