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

**Integrity.** The folder usually lies inside the project, so a repository can
ship a cache file of its own. None is trusted: the file's first line carries a
keyed hash (BLAKE2b) of its tables under a secret kept in the per-user cache
folder (``~/.cache/mlsleuth/cache-key``, created on first use, mode 0600), and a
file whose hash does not match (written by someone else, edited, truncated) is
ignored and rewritten. Each result is also checked against the report schema
when it is used; a malformed one is dropped and that file analysed again. No
cache problem ever stops a scan: at worst the scan runs as if there were no cache.
"""

from __future__ import annotations

import hashlib
import hmac
import json
import os
import secrets
import tempfile
import time
from pathlib import Path
from typing import Any

CACHE_FORMAT = 2  # 2: a signed header line, then the tables
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
        try:
            inside = folder.resolve().is_relative_to(base)
        except (OSError, RuntimeError, ValueError):  # a name too long, a link loop, a NUL byte
            inside = False
        if not inside:
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


_KEYS: dict[Path, bytes | None] = {}


def _signing_key() -> bytes | None:
    """This user's secret for signing caches (``cache-key`` in the per-user cache folder),
    created on first use; None when it can be neither read nor created."""
    path = user_cache_dir() / "cache-key"
    if path in _KEYS:
        return _KEYS[path]
    key: bytes | None = None
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        try:
            fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
        except FileExistsError:
            pass
        else:
            with os.fdopen(fd, "wb") as fh:
                fh.write(secrets.token_bytes(32))
        data = path.read_bytes()
        key = data if len(data) >= 32 else None  # a short one is someone's leftover: do not sign with it
    except OSError:
        key = None
    _KEYS[path] = key
    return key


def _sign(fingerprint: str, body: bytes) -> str | None:
    key = _signing_key()
    if key is None:
        return None
    h = hashlib.blake2b(key=key[:64], digest_size=32)
    h.update(fingerprint.encode() + b"\0" + body)
    return h.hexdigest()


def _valid_stat(entry: object) -> bool:
    return (
        isinstance(entry, list)
        and len(entry) == 4
        and all(isinstance(v, int) and not isinstance(v, bool) for v in entry[:2])
        and (entry[2] is None or isinstance(entry[2], str))
        and isinstance(entry[3], (bool, int))
    )


def valid_payload(payload: object) -> bool:
    """Whether a cached analysis payload has the shape the engine writes (findings and errors
    that validate as report entries once their path is filled in)."""
    from pydantic import ValidationError

    from mlsleuth.report import ErrorEntry, Finding

    if not isinstance(payload, dict):
        return False
    findings, errors = payload.get("findings"), payload.get("errors")
    if not isinstance(findings, list) or not isinstance(errors, list):
        return False
    suppressed, notes, deps = payload.get("suppressed", 0), payload.get("notes", []), payload.get("deps", {})
    if not isinstance(suppressed, int) or isinstance(suppressed, bool) or not isinstance(payload.get("parsed", False), bool):
        return False
    if not isinstance(notes, list) or not all(isinstance(n, str) for n in notes):
        return False
    if not isinstance(deps, dict) or not all(isinstance(k, str) and isinstance(v, str) for k, v in deps.items()):
        return False
    try:
        for raw in findings:
            location = raw.get("location", {}) if isinstance(raw, dict) else None
            if not isinstance(location, dict):
                return False
            Finding.model_validate({**raw, "location": {**location, "path": location.get("path") or "-"}})
        for raw in errors:
            if not isinstance(raw, dict):
                return False
            ErrorEntry.model_validate({**raw, "path": "-"})
    except (ValidationError, TypeError, ValueError):
        return False
    return True


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
        self._checked: set[str] = set()  # result keys that passed valid_payload
        self._load()

    def _load(self) -> None:
        try:
            raw = self.path.read_bytes()
        except FileNotFoundError:
            return
        except OSError as exc:
            self.load_error = f"cannot read cache {self.path}: {exc}"
            return
        head, _, body = raw.partition(b"\n")
        try:
            header = json.loads(head)
        except (ValueError, RecursionError):
            header = None
        if not isinstance(header, dict):
            self.load_error = f"cache {self.path} was corrupt and is rebuilt"
            self.dirty = True
            return
        if header.get("format") != CACHE_FORMAT or header.get("fingerprint") != self.fingerprint:
            return  # another version's or rule selection's cache: not ours to read
        expected = _sign(self.fingerprint, body)
        if expected is None or not hmac.compare_digest(str(header.get("mac", "")), expected):
            self.load_error = (
                f"cache {self.path} was not written by this user's mlsleuth (or was changed since); "
                "it is ignored and rebuilt, so results shipped with a repository are never trusted"
            )
            self.dirty = True
            return
        try:
            data = json.loads(body)
            self.stat = {
                path: entry
                for path, entry in dict(data["stat"]).items()
                if isinstance(path, str) and _valid_stat(entry)
            }
            self.results = {key: payload for key, payload in dict(data["results"]).items() if isinstance(payload, dict)}
        except (ValueError, KeyError, TypeError, AttributeError, RecursionError):
            self.load_error = f"cache {self.path} was corrupt and is rebuilt"
            self.stat, self.results = {}, {}
            self.dirty = True

    # -- lookups -------------------------------------------------------------
    def by_stat(self, path: str, size: int, mtime_ns: int) -> tuple[str | None, bool] | None:
        """(content key, was-a-candidate) for an unchanged file, else None."""
        entry = self.stat.get(path)
        if entry and entry[0] == size and entry[1] == mtime_ns:
            self._seen.add(path)
            return entry[2], bool(entry[3])
        return None

    def result(self, key: str | None) -> dict[str, Any] | None:
        """The cached payload for ``key``, checked against the report schema on first use (a
        malformed one is dropped, so the file is analysed again and the entry rewritten)."""
        if not key:
            return None
        payload = self.results.get(key)
        if payload is None or key in self._checked:
            return payload
        if not valid_payload(payload):
            del self.results[key]
            self.dirty = True
            return None
        self._checked.add(key)
        return payload

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
        body = json.dumps({"stat": self.stat, "results": self.results}, separators=(",", ":")).encode("utf-8")
        mac = _sign(self.fingerprint, body)
        if mac is None:
            return None  # no key this run (see _signing_key): nothing we write could be trusted later
        header = json.dumps({"format": CACHE_FORMAT, "fingerprint": self.fingerprint, "mac": mac}, separators=(",", ":")).encode()
        try:
            self.folder.mkdir(parents=True, exist_ok=True)
            for name, text in ((".gitignore", "# Created by mlsleuth.\n*\n"), ("CACHEDIR.TAG", _TAG)):
                marker = self.folder / name
                if not marker.exists():
                    marker.write_text(text, encoding="utf-8")
            fd, tmp = tempfile.mkstemp(dir=self.folder, prefix=".scan-", suffix=".tmp")
            with os.fdopen(fd, "wb") as fh:
                fh.write(header + b"\n" + body)
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
