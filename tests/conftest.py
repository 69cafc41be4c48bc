"""Shared test set-up: keep torch single-threaded (2-core machines) and give helpers."""

from __future__ import annotations

import os

os.environ.setdefault("OMP_NUM_THREADS", "1")
os.environ.setdefault("MKL_NUM_THREADS", "1")

# The real-world corpus holds other people's training projects, not tests:
# never collect or import anything under its case folders.
collect_ignore_glob = ["realworld/dev/*", "realworld/test/*"]
