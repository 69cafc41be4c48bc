"""``mlsleuth.scan.discovery``: display paths."""

from __future__ import annotations

import os
import random

from mlsleuth.scan.discovery import display_path


def test_display_path_fast_path_agrees_with_relpath_on_odd_paths():
    rng = random.Random(0)
    parts = ["a", "b", "..", ".", "", "x.py", "..x"]
    for _ in range(2000):
        path = "/" + "/".join(rng.choice(parts) for _ in range(rng.randint(1, 4)))
        root = "/" + "/".join(rng.choice(parts[:2]) for _ in range(rng.randint(0, 2)))
        rel = os.path.relpath(path, root)
        want = os.path.abspath(path) if rel == ".." or rel.startswith(".." + os.sep) or os.path.isabs(rel) else rel
        assert display_path(path, root) == want.replace(os.sep, "/"), (path, root)
