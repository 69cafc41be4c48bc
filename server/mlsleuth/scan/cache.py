"""The scan cache: per-file results keyed by content, so unchanged trees re-scan instantly.

One JSON file per *fingerprint* (mlsleuth version, the active rule set and the
code of the scanner and its rules) holds two tables:

* ``stat``: absolute path -> (size, mtime_ns, content hash, was-a-candidate),
  so a file whose size and modification time are unchanged is neither read
  nor hashed again;
* ``results``: content hash (+ the path it is shown as) -> the file's findings
  and errors, without the path, which is filled in on load.

Files modified within the last couple of seconds are not given a ``stat``
entry (their timestamp may not tick on the next edit), only a result entry,
so a quick edit is never missed. The folder gets a ``.gitignore`` and a
``CACHEDIR.TAG`` so it is neither committed nor backed up.
"""

from __future__ import annotations

import hashlib
import json
import os
import tempfile
import time
from pathlib import Path
from typing import Any

CACHE_FORMAT = 1
RACY_WINDOW_NS = 2_000_000_000
MAX_CACHE_FILES = 8
MAX_ENTRIES = 250_000
_TAG = "Signature: 8a477f597d28d172789f06886806bc55\n# This folder is a cache made by mlsleuth; it can be deleted at any time.\n"


def content_key(data: bytes, display: str, kind: str) -> str:
    h = hashlib.blake2b(data, digest_size=16)
    h.update(b"\0" + display.encode("utf-8", "surrogatepass") + b"\0" + kind.encode())
    return h.hexdigest()


def code_fingerprint(version: str, rule_ids: list[str], extra: str = "") -> str:
    """Changes whenever the version, the active rules, or any scanner source file changes."""
    import mlsleuth

    h = hashlib.blake2b(digest_size=12)
    h.update(f"{CACHE_FORMAT}|{version}|{','.join(sorted(rule_ids))}|{extra}".encode())
    pkg = Path(mlsleuth.__file__).parent
    sources = [pkg / "report.py", pkg / "config.py", *sorted((pkg / "scan").rglob("*.py"))]
    for src in sources:  # by content, so touching a file without changing it keeps the cache
        try:
            data = src.read_bytes()
        except OSError:
            continue
        h.update(f"{src.relative_to(pkg).as_posix()}:{len(data)}|".encode())
        h.update(data)
    return h.hexdigest()


def user_cache_dir() -> Path:
    base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    return Path(base) / "mlsleuth"


def _writable_dir(folder: Path) -> bool:
    try:
        folder.mkdir(parents=True, exist_ok=True)
        probe = tempfile.NamedTemporaryFile(dir=folder, prefix=".probe-", delete=True)
        probe.close()
        return True
    except OSError:
        return False


def choose_cache_dir(root: Path, configured: str | None, config_root: Path | None) -> tuple[Path | None, str | None]:
    """(cache folder, note): the configured one, ``ROOT/.mlsleuth_cache``, or a per-user folder.

    A configured ``cache-dir`` must lie inside the project that configures it: a scan
    only reads, and a setting in a repository someone else wrote must not make it
    create or prune files elsewhere. One that points outside is replaced by the
    per-user cache, and the note says so.
    """
    digest = hashlib.blake2b(str(root.resolve()).encode(), digest_size=8).hexdigest()
    fallback = user_cache_dir() / digest
    if configured:
        base = (config_root or root).resolve()
        folder = Path(configured).expanduser()
        if not folder.is_absolute():
            folder = base / folder
        if not folder.resolve().is_relative_to(base):
            if _writable_dir(fallback):
                return fallback, f"cache-dir {configured} lies outside the project {base}; using the per-user cache {fallback}"
            return None, f"cache-dir {configured} lies outside the project {base}; caching is off for this run"
        if _writable_dir(folder):
            return folder, None
        return None, f"cache-dir {folder} is not writable; caching is off for this run"
    local = root / ".mlsleuth_cache"
    if _writable_dir(local):
        return local, None
    if _writable_dir(fallback):
        return fallback, f"{root} is not writable; using the per-user cache {fallback}"
    return None, "no writable cache folder; caching is off for this run"


class ScanCache:
    """Load once, look up many, save once."""

    def __init__(self, folder: Path, fingerprint: str) -> None:
        self.folder = folder
        self.fingerprint = fingerprint
        self.path = folder / f"scan-{fingerprint}.json"
        self.stat: dict[str, list] = {}
        self.results: dict[str, dict[str, Any]] = {}
        self.dirty = False
        self.load_error: str | None = None
        self._seen: set[str] = set()
        self._load()

    def _load(self) -> None:
        try:
            raw = self.path.read_bytes()
        except FileNotFoundError:
            return
        except OSError as exc:
            self.load_error = f"cannot read cache {self.path}: {exc}"
            return
        try:
            data = json.loads(raw)
            if data.get("format") != CACHE_FORMAT or data.get("fingerprint") != self.fingerprint:
                return
            self.stat = {
                path: entry
                for path, entry in dict(data["stat"]).items()
                if isinstance(entry, list) and len(entry) == 4 and all(isinstance(v, int) for v in entry[:2])
            }
            self.results = {
                key: payload
                for key, payload in dict(data["results"]).items()
                if isinstance(payload, dict) and isinstance(payload.get("findings"), list) and isinstance(payload.get("errors"), list)
            }
        except (ValueError, KeyError, TypeError, AttributeError):
            self.load_error = f"cache {self.path} was corrupt and is rebuilt"
            self.stat, self.results = {}, {}

    # -- lookups -------------------------------------------------------------
    def by_stat(self, path: str, size: int, mtime_ns: int) -> tuple[str | None, bool] | None:
        """(content key, was-a-candidate) for an unchanged file, else None."""
        entry = self.stat.get(path)
        if entry and entry[0] == size and entry[1] == mtime_ns:
            self._seen.add(path)
            return entry[2], bool(entry[3])
        return None

    def result(self, key: str | None) -> dict[str, Any] | None:
        return self.results.get(key) if key else None

    # -- updates -------------------------------------------------------------
    def remember(self, path: str, size: int, mtime_ns: int, key: str | None, candidate: bool) -> None:
        self._seen.add(path)
        if time.time_ns() - mtime_ns < RACY_WINDOW_NS:
            if path in self.stat:
                del self.stat[path]
                self.dirty = True
            return
        entry = [size, mtime_ns, key, candidate]
        if self.stat.get(path) != entry:
            self.stat[path] = entry
            self.dirty = True

    def store(self, key: str, payload: dict[str, Any]) -> None:
        if self.results.get(key) != payload:
            self.results[key] = payload
            self.dirty = True

    def save(self) -> str | None:
        """Write the cache atomically; return a note if it could not be written."""
        if not self.dirty:
            return None
        if len(self.stat) > MAX_ENTRIES:
            self.stat = {p: e for p, e in self.stat.items() if p in self._seen}
        live = {e[2] for e in self.stat.values() if e[2]}
        if len(self.results) > MAX_ENTRIES:
            self.results = {k: v for k, v in self.results.items() if k in live}
        payload = {"format": CACHE_FORMAT, "fingerprint": self.fingerprint, "stat": self.stat, "results": self.results}
        try:
            self.folder.mkdir(parents=True, exist_ok=True)
            for name, text in ((".gitignore", "# Created by mlsleuth.\n*\n"), ("CACHEDIR.TAG", _TAG)):
                marker = self.folder / name
                if not marker.exists():
                    marker.write_text(text, encoding="utf-8")
            fd, tmp = tempfile.mkstemp(dir=self.folder, prefix=".scan-", suffix=".tmp")
            with os.fdopen(fd, "w", encoding="utf-8") as fh:
                json.dump(payload, fh, separators=(",", ":"))
            os.replace(tmp, self.path)
        except OSError as exc:
            return f"cannot write cache {self.path}: {exc}"
        self.dirty = False
        self._prune()
        return None

    def _prune(self) -> None:
        """Keep only the most recent cache files (other rule selections, older versions)."""
        try:
            files = sorted(self.folder.glob("scan-*.json"), key=lambda p: p.stat().st_mtime, reverse=True)
        except OSError:
            return
        for old in files[MAX_CACHE_FILES:]:
            try:
                old.unlink()
            except OSError:
                pass
