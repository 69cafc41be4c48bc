"""Shared test set-up: keep torch single-threaded (2-core machines) and give helpers."""

from __future__ import annotations

import os

os.environ.setdefault("OMP_NUM_THREADS", "1")
os.environ.setdefault("MKL_NUM_THREADS", "1")
