"""Scan many project folders in one process: the benchmark's way to avoid one interpreter start per folder.

Reads a JSON list of folders on standard input and writes one JSON line per
folder: ``{"dir": ..., "report": <the scan report>}`` or ``{"dir": ..., "error": ...}``.
Each folder is scanned on its own, as its own root, with an empty
configuration and no cache, exactly as ``mlsleuth scan .`` run inside it
with ``--config`` naming an empty ``[tool.mlsleuth]`` and ``--no-cache``.
"""

from __future__ import annotations

import json
import sys
import time
import traceback


def main() -> int:
    from mlsleuth.config import Config
    from mlsleuth.scan import scan_paths

    folders = json.loads(sys.stdin.read())
    for folder in folders:
        start = time.perf_counter()
        try:
            report = scan_paths(["."], root=folder, config=Config(), use_cache=False, jobs=1)
            line = {"dir": folder, "report": report.model_dump(mode="json")}
        except Exception:  # noqa: BLE001 - a crash on one folder is a result to report, not a reason to stop
            line = {"dir": folder, "error": traceback.format_exc(limit=3)}
        line["seconds"] = time.perf_counter() - start
        sys.stdout.write(json.dumps(line) + "\n")
        sys.stdout.flush()
    return 0


if __name__ == "__main__":
    sys.exit(main())
