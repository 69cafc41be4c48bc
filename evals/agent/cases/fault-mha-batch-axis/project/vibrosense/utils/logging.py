"""Console logging plus machine-readable run logs (JSON lines and CSV)."""
from __future__ import annotations

import csv
import json
import logging
import sys
from pathlib import Path
from typing import Any

_FMT = "%(asctime)s %(levelname).1s %(name)s | %(message)s"


def get_logger(name: str = "vibrosense", level: int = logging.INFO, log_file: str | Path | None = None) -> logging.Logger:
    logger = logging.getLogger(name)
    if not logger.handlers:
        handler = logging.StreamHandler(sys.stdout)
        handler.setFormatter(logging.Formatter(_FMT, datefmt="%H:%M:%S"))
        logger.addHandler(handler)
        logger.propagate = False
    if log_file is not None and not any(isinstance(h, logging.FileHandler) for h in logger.handlers):
        Path(log_file).parent.mkdir(parents=True, exist_ok=True)
        fh = logging.FileHandler(log_file)
        fh.setFormatter(logging.Formatter(_FMT))
        logger.addHandler(fh)
    logger.setLevel(level)
    return logger


def _jsonable(value: Any) -> Any:
    if hasattr(value, "item") and callable(value.item):
        try:
            return value.item()
        except (ValueError, RuntimeError):
            return str(value)
    if isinstance(value, (list, tuple)):
        return [_jsonable(v) for v in value]
    if isinstance(value, dict):
        return {k: _jsonable(v) for k, v in value.items()}
    return value


class JsonlWriter:
    def __init__(self, path: str | Path):
        self.path = Path(path)
        self.path.parent.mkdir(parents=True, exist_ok=True)
        self._f = open(self.path, "a")

    def write(self, record: dict) -> None:
        self._f.write(json.dumps(_jsonable(record)) + "\n")
        self._f.flush()

    def close(self) -> None:
        self._f.close()


class CsvWriter:
    """CSV with a header fixed by the first record; later unknown keys are dropped with a warning."""

    def __init__(self, path: str | Path):
        self.path = Path(path)
        self.path.parent.mkdir(parents=True, exist_ok=True)
        self._f = None
        self._writer = None
        self._fields: list[str] = []
        self._warned: set[str] = set()

    def write(self, record: dict) -> None:
        record = _jsonable(record)
        if self._writer is None:
            self._fields = list(record)
            self._f = open(self.path, "w", newline="")
            self._writer = csv.DictWriter(self._f, fieldnames=self._fields, extrasaction="ignore")
            self._writer.writeheader()
        extra = set(record) - set(self._fields) - self._warned
        if extra:
            get_logger().warning("csv log %s: dropping new columns %s", self.path.name, sorted(extra))
            self._warned |= extra
        self._writer.writerow(record)
        self._f.flush()

    def close(self) -> None:
        if self._f is not None:
            self._f.close()


def format_metrics(metrics: dict, precision: int = 4) -> str:
    parts = []
    for key, value in metrics.items():
        if isinstance(value, float):
            parts.append(f"{key}={value:.{precision}g}")
        elif isinstance(value, (int, str)):
            parts.append(f"{key}={value}")
    return " ".join(parts)
