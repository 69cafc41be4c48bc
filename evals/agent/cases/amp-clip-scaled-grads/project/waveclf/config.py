from __future__ import annotations

import copy

import yaml


class AttrDict(dict):
    __getattr__ = dict.__getitem__

    def __setattr__(self, key, value):
        self[key] = value


def _wrap(obj):
    if isinstance(obj, dict):
        return AttrDict({k: _wrap(v) for k, v in obj.items()})
    return obj


def _parse_value(text: str):
    return yaml.safe_load(text)


def load_config(path: str, overrides: list[str] | None = None) -> AttrDict:
    """Load a YAML config and apply dotted overrides such as train.amp=true."""
    with open(path) as f:
        cfg = yaml.safe_load(f)
    cfg = copy.deepcopy(cfg)
    for item in overrides or []:
        key, _, value = item.partition("=")
        node = cfg
        *parents, leaf = key.split(".")
        for p in parents:
            node = node[p]
        if leaf not in node:
            raise KeyError(f"unknown config key: {key}")
        node[leaf] = _parse_value(value)
    return _wrap(cfg)
