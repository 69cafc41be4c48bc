"""Scan files and folders for silent training bugs: the library entry point.

:func:`scan_paths` is what the CLI (``mlsleuth scan``) and the MCP ``scan``
tool call. The pipeline:

1. **discover** the ``.py`` and ``.ipynb`` files (ripgrep, honouring
   ``.gitignore``; ``exclude`` globs from ``[tool.mlsleuth]``; explicit file
   arguments always kept);
2. **narrow** to candidates: files containing at least one trigger word of an
   active rule (``rg -l -F``), so the rest is never read by Python;
3. **reuse** cached results for files whose size and mtime, or content hash,
   are unchanged;
4. **analyse** the rest, in worker processes when there are many;
5. **report**: one :class:`~mlsleuth.report.Report` with findings in a
   deterministic order and every per-file problem as an ``ErrorEntry``.

Nothing here raises for bad input files. It raises
:class:`~mlsleuth.config.ConfigError` only for an invalid configuration or
rule selection, which the caller must fix.
"""

from __future__ import annotations

import gc
import os
import stat as stat_mod
import time
from collections.abc import Callable, Sequence
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from mlsleuth import __version__
from mlsleuth.config import (
    Config,
    ConfigError,
    Selection,
    check_file_size_mb,
    load_config,
)
from mlsleuth.report import SEVERITY_RANK, ErrorEntry, Finding, Report
from mlsleuth.scan import discovery
from mlsleuth.scan.analysis.project import ProjectIndex
from mlsleuth.scan.analyze import active_rules, analyze_source, parse_source, rules_for
from mlsleuth.scan.cache import (
    ScanCache,
    choose_cache_dir,
    code_fingerprint,
    content_key,
)
from mlsleuth.scan.ignore import PathMatcher, PerFileIgnores

DEFAULT_MAX_FILE_SIZE_MB = 10.0
NOTEBOOK_SIZE_FACTOR = 10  # a notebook's JSON carries outputs; its cap is this many times larger
PARALLEL_MIN_FILES = 24
PARALLEL_MIN_BYTES = 256_000
_RG_FILE_ARGS_CHUNK = 1500

Progress = Callable[[int, int], None]
Task = tuple[int, str, bytes, str, bool, int, str]  # listing index, displayed path, bytes, kind, explicit, size limit, path


# -- reading -------------------------------------------------------------------------
class SourceProblem(Exception):
    def __init__(self, kind: str, message: str) -> None:
        super().__init__(message)
        self.kind = kind
        self.message = message


def decode_source(data: bytes) -> str:
    """Text of a Python file, decoded as Python itself would: a PEP 263 coding
    declaration in the first two lines wins, else UTF-8 (a BOM is allowed)."""
    if b"\0" in data:
        raise SourceProblem("binary-file", "looks binary (it contains NUL bytes), not Python source; remove it or exclude it")
    head = b"\n".join(data.split(b"\n", 2)[:2])
    if b"coding" in head:
        import io
        import tokenize

        try:
            encoding, _ = tokenize.detect_encoding(io.BytesIO(data).readline)
        except SyntaxError as exc:
            raise SourceProblem("bad-encoding", f"cannot decode: {exc}; fix the coding declaration in the first two lines") from None
        try:
            return data.decode("utf-8-sig" if encoding.startswith("utf-8") else encoding)
        except (UnicodeDecodeError, LookupError) as exc:
            reason = getattr(exc, "reason", str(exc))
            raise SourceProblem(
                "bad-encoding", f"is not valid {encoding} as its coding declaration says ({reason}); re-save it in that encoding or as UTF-8"
            ) from None
    try:
        return data.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        bad = exc.object[exc.start : exc.start + 1].hex()
        line = data.count(b"\n", 0, exc.start) + 1
        raise SourceProblem(
            "bad-encoding",
            f"is not valid UTF-8 (byte 0x{bad} on line {line}) and has no coding declaration; "
            "re-save it as UTF-8 or add a PEP 263 line such as `# -*- coding: latin-1 -*-`",
        ) from None


def _decode_notebook(data: bytes) -> str:
    """A notebook's JSON text: UTF-8 as Jupyter writes it, or UTF-16/32 (with or without a BOM)
    as JSON allows and some Windows tools save it."""
    import json

    if data[:2] in (b"\xff\xfe", b"\xfe\xff") or (len(data) >= 4 and b"\0" in data[:4]):
        encoding = json.detect_encoding(data)
        try:
            return data.decode(encoding)
        except UnicodeDecodeError as exc:
            raise SourceProblem("bad-encoding", f"looks like {encoding} JSON but does not decode ({exc.reason}); re-save it as UTF-8") from None
    return decode_source(data)


# -- per-file analysis (runs in workers) -------------------------------------------------
_WORKER_RULES: list | None = None
_WORKER_PROJECT: ProjectIndex | None = None


def _init_worker(selection: Selection, project_files: dict[str, str] | None = None, roots: list[str] | None = None, max_bytes: int = 0) -> None:
    global _WORKER_RULES, _WORKER_PROJECT
    _WORKER_RULES = active_rules(selection)
    _WORKER_PROJECT = ProjectIndex(project_files, roots or [], max_bytes=max_bytes) if project_files is not None else None
    gc.freeze()  # imported code and rule tables live as long as the worker: keep them out of every collection


def _strip(model: Finding | ErrorEntry, display: str | None = None) -> dict[str, Any]:
    data = model.model_dump(mode="json", exclude_defaults=True)
    if isinstance(model, Finding):
        data.pop("id", None)
        location = data.get("location", {})
        if location.get("path") in (None, display):  # kept when the finding points into another file
            location.pop("path", None)
    else:
        data.pop("path", None)
    return data


def analyze_blob(
    display: str, data: bytes, kind: str, explicit: bool, rules: list, code_limit: int, project: ProjectIndex | None = None, path: str | None = None
) -> dict[str, Any]:
    """Findings and errors of one file's bytes, as a cacheable, path-free payload.

    Never raises: a failure inside the analysis of this file (a rule's bug, a parser
    limit) becomes this file's ``internal-error`` entry and the other files still count.
    """
    try:
        return _analyze_blob(display, data, kind, explicit, rules, code_limit, project, path)
    except (RecursionError, MemoryError) as exc:
        what = "nested too deeply" if isinstance(exc, RecursionError) else "too large"
        message = f"skipped: its code is {what} for the analysis ({type(exc).__name__}); the other files were scanned"
        return {"findings": [], "errors": [{"kind": "too-complex", "message": message}], "suppressed": 0, "parsed": False}
    except Exception as exc:  # noqa: BLE001 - one file's failure must not end the scan
        import traceback

        message = f"internal error while analysing this file ({type(exc).__name__}: {exc}); the other files were scanned; please report it"
        detail = "".join(traceback.format_exception(exc))[-4000:]
        return {"findings": [], "errors": [{"kind": "internal-error", "message": message, "detail": detail}], "suppressed": 0, "parsed": False}


def _analyze_blob(
    display: str, data: bytes, kind: str, explicit: bool, rules: list, code_limit: int, project: ProjectIndex | None, path: str | None
) -> dict[str, Any]:
    errors: list[dict[str, Any]] = []
    try:
        text = _decode_notebook(data) if kind == "ipynb" else decode_source(data)
    except SourceProblem as exc:
        return {"findings": [], "errors": [{"kind": exc.kind, "message": exc.message}], "suppressed": 0, "parsed": False}
    nb = None
    if kind == "ipynb":
        from mlsleuth.scan.notebook import NotebookError, notebook_source

        try:
            nb = notebook_source(text)
        except NotebookError as exc:
            return {"findings": [], "errors": [{"kind": "bad-notebook", "message": str(exc)}], "suppressed": 0, "parsed": False}
        if nb.problems:
            errors.append({"kind": "bad-notebook", "message": "; ".join(nb.problems)})
        for cell, line, msg in nb.cell_errors:
            where = f"cell {cell}" + (f", line {line}" if line else "")
            errors.append({"kind": "syntax-error", "message": f"cannot parse {where}: {msg}; that cell was skipped, the other cells were scanned"})
        text = nb.source
        if len(text) > code_limit:
            return {"findings": [], "errors": [{"kind": "file-too-large", "message": f"its code cells hold {len(text):,} characters, over the limit"}], "suppressed": 0, "parsed": False}
    wanted = rules_for(text, rules)
    collecting = gc.isenabled()
    gc.disable()  # a parse allocates millions of acyclic nodes: collections meanwhile only cost time (~30% of it)
    try:
        result = analyze_source(text, display, rules=wanted, gated=True, project=project if nb is None else None, path=path)
    finally:
        if collecting:
            gc.enable()  # the tree is garbage by now; what it left in cycles goes in the next collection
    parsed = result.parsed  # a file with a syntax error is an error entry, not a parsed file
    notes = list(result.notes)
    if explicit and not wanted and nb is None:
        _tree, _text, problem, note = parse_source(text, display)  # an explicitly named file is always checked for syntax
        parsed = problem is None
        if problem is not None:
            errors.append(_strip(problem))
        if note:
            notes.append(note)
    findings = []
    for f in result.findings:
        if nb is not None and f.location.path in (None, display):
            cell, line = nb.locate(f.location.line)
            end_cell, end_line = nb.locate(f.location.end_line)
            f.location.cell = cell
            f.location.line = line
            f.location.end_line = end_line if end_cell == cell else None
            if f.location.end_line is None:
                f.location.end_column = None
            f.message, f.observation = _cell_lines(f.message, nb), _cell_lines(f.observation, nb)
        findings.append(_strip(f, display))
    errors.extend(_strip(e) for e in result.errors)
    payload: dict[str, Any] = {"findings": findings, "errors": errors, "suppressed": result.suppressed, "parsed": parsed}
    if notes:
        payload["notes"] = notes
    if result.deps:
        payload["deps"] = result.deps
    return payload


def _cell_lines(text: str, nb: Any) -> str:
    """Rewrite "line N" of the joined notebook source in a rule's text as "cell C line L"."""
    import re

    def label(m: re.Match[str]) -> str:
        cell, line = nb.locate(int(m.group(1)))
        return f"cell {cell} line {line}" if cell is not None else m.group(0)

    return re.sub(r"\bline (\d+)\b", label, text) if text else text


def _run_chunk(tasks: list[tuple[int, str, bytes, str, bool, int, str]]) -> list[tuple[int, dict[str, Any]]]:
    rules = _WORKER_RULES if _WORKER_RULES is not None else []
    return [
        (i, analyze_blob(display, data, kind, explicit, rules, limit, _WORKER_PROJECT, path))
        for i, display, data, kind, explicit, limit, path in tasks
    ]


# -- the pipeline ----------------------------------------------------------------------------
def _default_jobs() -> int:
    try:
        n = len(os.sched_getaffinity(0))
    except AttributeError:  # macOS, Windows
        n = os.cpu_count() or 1
    return max(1, min(n, 8))


def _pool_context():
    import multiprocessing
    import threading

    methods = multiprocessing.get_all_start_methods()
    # fork is fastest, but forking a process that runs other threads (an MCP
    # server) can deadlock; use forkserver there.
    if "fork" in methods and threading.active_count() == 1:
        return multiprocessing.get_context("fork")
    if "forkserver" in methods:
        return multiprocessing.get_context("forkserver")
    return multiprocessing.get_context("spawn")


def resolve_selection(selection: Selection | None, config: Config, known: set[str]) -> Selection:
    sel = selection or Selection(select=tuple(config.select), ignore=tuple(config.ignore), min_severity=config.min_severity)
    sel.validate(known)
    return sel


def scan_paths(
    paths: Sequence[str | os.PathLike[str]] | str | os.PathLike[str],
    *,
    root: str | os.PathLike[str] | None = None,
    selection: Selection | None = None,
    config: Config | None = None,
    use_cache: bool = True,
    jobs: int | None = None,
    progress: Progress | None = None,
    max_file_size_mb: float | None = None,
    force_exclude: bool = False,
    follow_symlinks: bool = True,
    confine_to: str | os.PathLike[str] | None = None,
) -> Report:
    """Scan files and folders; return a finalized ``Report`` (tool ``scan``).

    ``root`` (default: the current folder) is where displayed paths are
    relative to and where the cache lives; relative ``paths`` are taken
    relative to it too. ``config`` defaults to the nearest
    ``[tool.mlsleuth]`` above the first path; ``selection`` overrides its
    select/ignore/min-severity. ``progress(done, total)`` is called as
    candidate files are finished. Explicitly named files are scanned even if
    ignored or excluded, unless ``force_exclude`` is set.

    Symbolic links in scanned folders are followed unless ``follow_symlinks``
    is False. ``confine_to`` (a folder; a server passes its root) keeps the
    scan inside it: a path given, a file or a linked folder whose real
    location is outside is not read and is reported once as an
    ``outside-root`` error entry; link loops are reported as ``symlink-loop``.

    The stages, in order: :func:`_plan` (inputs, configuration, rules),
    :func:`_discover`, :func:`_open_cache`, :func:`_reuse` (cached results by
    size and mtime), :func:`_narrow` (ripgrep), :func:`_read_candidates`
    (the rest of the narrowing, then cached results by content hash),
    :func:`_analyze`, :func:`_store` and :func:`_report`.
    """
    started = time.perf_counter()
    plan = _plan(paths, root, config, selection, max_file_size_mb)
    state = _ScanState()
    listing, rg = _discover(plan, force_exclude, follow_symlinks, confine_to)
    state.errors.extend(listing.errors)
    cache = _open_cache(plan, state.notes) if use_cache else None
    state.project = _project_index(plan, listing, state)
    pending, known_candidates = _reuse(plan, listing, cache, state)
    candidate_set = _narrow(plan, listing, rg, pending, confine_to, follow_symlinks)
    tasks, candidates = _read_candidates(plan, listing, cache, state, pending, known_candidates, candidate_set)
    if progress is not None:
        progress(state.hits, candidates)
    jobs_used, pool_note = _analyze(tasks, plan.selection, plan.rules, jobs, state.payloads, progress, state.hits, candidates, state.project)
    if pool_note:
        state.notes.append(pool_note)
    if cache is not None:
        _store(cache, tasks, state)
    return _report(plan, listing, rg, cache, state, tasks, candidates, jobs_used, started)


@dataclass
class _ScanPlan:
    """What one scan is asked to do: its inputs, configuration and rules."""

    root_path: Path
    given: list[str]  # the paths as the caller wrote them
    given_abs: list[str]
    config: Config
    selection: Selection
    rules: list
    triggers: list[str]
    limit_mb: float
    limit_bytes: int
    per_file_ignores: PerFileIgnores | None = None


@dataclass
class _ScanState:
    """What the stages collect on the way to the report."""

    errors: list[ErrorEntry] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
    payloads: dict[int, dict[str, Any]] = field(default_factory=dict)  # listing index -> analysis payload
    displays: dict[int, str] = field(default_factory=dict)  # listing index -> displayed path
    hits: int = 0  # results taken from the cache
    project: ProjectIndex | None = None  # the listed files, for rules that follow a name into another module


def _project_index(plan: _ScanPlan, listing: discovery.Listing, state: _ScanState) -> ProjectIndex:
    """The project the listed files make up: rules follow imports and calls across it."""
    root = str(plan.root_path)
    files = {}
    for index, path in enumerate(listing.files):
        state.displays[index] = discovery.display_path(path, root)
        files[path] = state.displays[index]
    roots = [*listing.dirs, root]
    return ProjectIndex(files, roots, max_bytes=plan.limit_bytes)


def _deps_current(payload: dict[str, Any], project: ProjectIndex | None) -> bool:
    """Whether the other files a cached result looked at (and, after a caller search, the file list) are unchanged."""
    deps = payload.get("deps")
    if not deps:
        return True
    if project is None:
        return False
    for path, digest in deps.items():
        current = project.listing_key() if path == "<listing>" else project.content_hash(path)
        if current != digest:
            return False
    return True


def _plan(paths, root, config: Config | None, selection: Selection | None, max_file_size_mb: float | None) -> _ScanPlan:
    """Resolve the paths, the configuration, the rule selection and the file-size limit."""
    if isinstance(paths, (str, os.PathLike)):
        paths = [paths]
    root_path = Path(os.path.abspath(root if root is not None else os.getcwd()))
    given = [os.fspath(p) for p in paths] or [str(root_path)]
    given_abs = [p if os.path.isabs(p) else os.path.normpath(str(root_path / p)) for p in given]
    if config is None:
        first = next((p for p in given_abs if os.path.exists(p)), str(root_path))
        config = load_config(Path(first))

    from mlsleuth.scan.registry import all_rules

    known = set(all_rules())
    sel = resolve_selection(selection, config, known)
    rules = active_rules(sel)
    triggers = sorted({t for r in rules for t in r.triggers})
    limit_mb = max_file_size_mb if max_file_size_mb is not None else getattr(config, "max_file_size_mb", None) or DEFAULT_MAX_FILE_SIZE_MB
    limit_mb = check_file_size_mb(limit_mb)
    limit_bytes = int(limit_mb * 2**20)
    per_file = _per_file_ignores(config, root_path, known)
    return _ScanPlan(root_path, given, given_abs, config, sel, rules, triggers, limit_mb, limit_bytes, per_file)


def _per_file_ignores(config: Config, root_path: Path, known: set[str]) -> PerFileIgnores | None:
    """``per-file-ignores`` with its ids checked; patterns are relative to the config file's folder."""
    from mlsleuth.report import CATEGORIES

    table = getattr(config, "per_file_ignores", None) or {}
    for pattern, ids in table.items():
        for name in ids:
            if name not in known and name not in CATEGORIES and name != "all":
                raise ConfigError(
                    f"unknown rule or category {name!r} in [tool.mlsleuth] per-file-ignores[{pattern!r}]; "
                    f"see `mlsleuth rules --tool scan` for ids, categories are: {', '.join(CATEGORIES)}"
                )
    if not table:
        return None
    return PerFileIgnores(table, str(config.root or root_path))


def _discover(plan: _ScanPlan, force_exclude: bool, follow_symlinks: bool, confine_to) -> tuple[discovery.Listing, str | None]:
    """Stage 1: list the ``.py`` and ``.ipynb`` files; errors name paths as the caller wrote them."""
    root_path, config = plan.root_path, plan.config
    rg = discovery.find_rg()
    exclude_base = str(config.root) if config.root else str(root_path)
    excludes = PathMatcher(list(config.exclude), exclude_base)
    listing = discovery.discover(
        plan.given_abs, str(root_path), excludes, rg=rg, force_exclude=force_exclude, follow_symlinks=follow_symlinks, confine_to=confine_to
    )
    shown_as = dict(zip(plan.given_abs, plan.given))
    for err in listing.errors:
        if err.kind == "not-found" and err.path in shown_as:
            err.path = shown_as[err.path]
            err.message = f"no such file or directory: {err.path}; check the path"
    return listing, rg


def _open_cache(plan: _ScanPlan, notes: list[str]) -> ScanCache | None:
    """The result cache for this root, rules and size limit (None when there is no usable folder)."""
    folder, note = choose_cache_dir(plan.root_path, plan.config.cache_dir, plan.config.root)
    if note:
        notes.append(note)
    if folder is None:
        return None
    cache = ScanCache(folder, code_fingerprint(__version__, [r.id for r in plan.rules], f"{plan.limit_bytes}"))
    if cache.load_error:
        notes.append(cache.load_error)
    return cache


def _reuse(
    plan: _ScanPlan, listing: discovery.Listing, cache: ScanCache | None, state: _ScanState
) -> tuple[list[tuple[int, str, os.stat_result]], list[tuple[int, str, os.stat_result, str | None]]]:
    """Stage 3 by size and mtime: take cached results, skip files known to be no candidates.

    Returns (files the cache knows nothing about, known candidates without a cached result).
    """
    root = str(plan.root_path)
    pending: list[tuple[int, str, os.stat_result]] = []  # candidate status unknown
    known_candidates: list[tuple[int, str, os.stat_result, str | None]] = []
    for index, path in enumerate(listing.files):
        state.displays[index] = discovery.display_path(path, root)
        try:
            st = os.stat(path)
        except OSError as exc:
            state.errors.append(discovery.os_error(path, exc, root))
            continue
        if not stat_mod.S_ISREG(st.st_mode):
            continue
        explicit = path in listing.explicit
        if cache is not None:
            known_state = cache.by_stat(path, st.st_size, st.st_mtime_ns)
            if known_state is not None:
                key, was_candidate = known_state
                if not was_candidate and not explicit:
                    continue
                cached = cache.result(key)
                if cached is not None and _deps_current(cached, state.project):
                    state.payloads[index] = cached
                    state.hits += 1
                    continue
                known_candidates.append((index, path, st, key))
                continue
        pending.append((index, path, st))
    return pending, known_candidates


def _narrow(
    plan: _ScanPlan, listing: discovery.Listing, rg: str | None, pending: list[tuple[int, str, os.stat_result]], confine_to, follow_symlinks: bool
) -> set[str] | None:
    """Stage 2 by ripgrep: which of the files we know nothing about contain a trigger (None: not asked)."""
    candidate_set: set[str] | None = None
    triggers, root = plan.triggers, str(plan.root_path)
    if rg and triggers:
        unknown = [p for _, p, _ in pending if p not in listing.explicit and not p.endswith(".ipynb")]
        if unknown:
            candidate_set = set()
            # rg over the folders is quickest, but it follows links on its own: not when confined
            if len(pending) == len(listing.files) and listing.dirs and not listing.explicit and confine_to is None and follow_symlinks:
                candidate_set = discovery.rg_candidates(rg, listing.dirs, triggers, root)
            else:
                for start in range(0, len(unknown), _RG_FILE_ARGS_CHUNK):
                    chunk = unknown[start : start + _RG_FILE_ARGS_CHUNK]
                    candidate_set |= discovery.rg_candidates(rg, chunk, triggers, root)
    return candidate_set


def _read_candidates(
    plan: _ScanPlan,
    listing: discovery.Listing,
    cache: ScanCache | None,
    state: _ScanState,
    pending: list[tuple[int, str, os.stat_result]],
    known_candidates: list[tuple[int, str, os.stat_result, str | None]],
    candidate_set: set[str] | None,
) -> tuple[list[Task], int]:
    """Read the candidates (size caps; the trigger test in Python when ripgrep did not run), then
    stage 3 by content hash. Returns (analysis tasks, number of candidates)."""
    limit_bytes, limit_mb, triggers = plan.limit_bytes, plan.limit_mb, plan.triggers
    root, displays = str(plan.root_path), state.displays
    tasks: list[Task] = []
    candidates = state.hits
    todo = [(i, p, st, None) for i, p, st in pending] + known_candidates
    todo.sort(key=lambda t: t[0])
    for index, path, st, known_key in todo:
        explicit = path in listing.explicit
        kind = "ipynb" if path.endswith(".ipynb") else "py"
        known = known_key is not None  # a candidate the cache already knows (ripgrep did not look at it this time)
        if candidate_set is not None and not explicit and not known and kind == "py" and path not in candidate_set:
            if cache is not None:
                cache.remember(path, st.st_size, st.st_mtime_ns, None, False)
            continue
        cap = limit_bytes * (NOTEBOOK_SIZE_FACTOR if kind == "ipynb" else 1)
        if st.st_size > cap:
            state.errors.append(_too_large(displays[index], st.st_size, cap, limit_mb))
            continue
        try:
            with open(path, "rb") as fh:
                data = fh.read(cap + 1)
        except OSError as exc:
            state.errors.append(discovery.os_error(path, exc, root))
            continue
        if len(data) > cap:  # grew since stat
            state.errors.append(_too_large(displays[index], len(data), cap, limit_mb))
            continue
        if candidate_set is None and not explicit and not known and kind == "py":
            text_hit = any(t.encode() in data for t in triggers) if triggers else False
            if not text_hit and not _needs_decoding_to_tell(data):
                if cache is not None:
                    cache.remember(path, st.st_size, st.st_mtime_ns, None, False)
                continue
        candidates += 1
        key = content_key(data, displays[index], kind + ("!" if explicit else ""))
        if cache is not None:
            cache.remember(path, st.st_size, st.st_mtime_ns, key, True)
            cached = cache.result(key)
            if cached is not None and _deps_current(cached, state.project):
                state.payloads[index] = cached
                state.hits += 1
                continue
        tasks.append((index, displays[index], data, kind, explicit, limit_bytes, path))
    return tasks, candidates


def _store(cache: ScanCache, tasks: list[Task], state: _ScanState) -> None:
    """Put the fresh results into the cache and save it."""
    for index, _display, data, kind, explicit, _limit, _path in tasks:
        payload = state.payloads.get(index)
        if payload is not None:
            cache.store(content_key(data, state.displays[index], kind + ("!" if explicit else "")), payload)
    note = cache.save()
    if note:
        state.notes.append(note)


def _report(
    plan: _ScanPlan,
    listing: discovery.Listing,
    rg: str | None,
    cache: ScanCache | None,
    state: _ScanState,
    tasks: list[Task],
    candidates: int,
    jobs_used: int,
    started: float,
) -> Report:
    """Stage 5: findings in a deterministic order, every per-file problem as an ``ErrorEntry``, the stats."""
    sel, displays, errors, notes = plan.selection, state.displays, state.errors, state.notes
    hits = state.hits
    report = Report(tool="scan")
    floor = SEVERITY_RANK[sel.min_severity]
    parsed = suppressed = 0
    fresh = {t[0] for t in tasks}
    seen: set[tuple] = set()
    for index in sorted(state.payloads):
        payload = state.payloads[index]
        parsed += bool(payload.get("parsed")) and index in fresh
        suppressed += int(payload.get("suppressed", 0))
        for raw in payload.get("findings", []):
            location = raw.get("location", {})
            finding = Finding.model_validate({**raw, "location": {**location, "path": location.get("path") or displays[index]}})
            key = (finding.rule, finding.location.path, finding.location.line, finding.location.column, finding.message)
            if key in seen:  # two files' analyses led to the same line of a shared module
                continue
            seen.add(key)
            where = listing.files[index] if finding.location.path == displays[index] else str(plan.root_path / (finding.location.path or ""))
            if _ignored_here(plan, finding, where):
                suppressed += 1
                continue
            if SEVERITY_RANK[finding.severity] <= floor and sel.allows(finding.rule, finding.category, finding.severity):
                report.findings.append(finding)
        for raw in payload.get("errors", []):
            errors.append(ErrorEntry.model_validate({**raw, "path": displays[index]}))
        notes.extend(f"{displays[index]}: {note}" for note in payload.get("notes", []))
    errors.sort(key=lambda e: (e.path or "", e.kind, e.message))
    report.errors = errors
    stats: dict[str, Any] = {
        "paths": plan.given,
        "files_listed": len(listing.files),
        "excluded": listing.excluded,
        "candidates": candidates,
        "parsed": parsed,
        "cache_hits": hits,
        "analyzed": len(tasks),
        "suppressed": suppressed,
        "rules_active": len(plan.rules),
        "jobs": jobs_used,
        "walker": listing.walker,
        "rg": rg,
        "cache": str(cache.path) if cache is not None else None,
        "seconds": round(time.perf_counter() - started, 4),
    }
    if not rg:
        notes.append(
            "ripgrep (rg) was not found, so the pure-Python walker listed the files: it honours "
            ".gitignore files in scanned folders but not global or nested-negation rules, and it is slower; "
            "`pip install ripgrep` restores exact .gitignore handling"
        )
    if notes:
        stats["notes"] = notes
    report.finalize(stats=stats)
    n_listed = len(listing.files)
    report.summary.text = (
        f"{report.summary.text} ({n_listed} file{'s' if n_listed != 1 else ''} listed, "
        f"{candidates} checked, {hits} from cache)"
    )
    return report


def _ignored_here(plan: _ScanPlan, finding: Finding, path: str) -> bool:
    """Whether ``per-file-ignores`` turns this finding off in the file at ``path``."""
    return _off_by_pattern(plan.per_file_ignores, finding, path)


def _off_by_pattern(per_file: PerFileIgnores | None, finding: Finding, path: str) -> bool:
    if per_file is None:
        return False
    off = per_file.ignored(path)
    return bool(off) and bool({"all", finding.rule, finding.category} & off)


def report_filter(config: Config, root: str | os.PathLike[str], selection: Selection | None = None) -> tuple[Selection, Callable[[Finding, str], bool]]:
    """(the resolved selection, ``keep(finding, absolute_path)``): whether a scan would report a finding
    of that file (rule selection, severity floor, ``per-file-ignores``); for passes over single texts."""
    from mlsleuth.scan.registry import all_rules

    known = set(all_rules())
    sel = resolve_selection(selection, config, known)
    per_file = _per_file_ignores(config, Path(os.path.abspath(root)), known)
    floor = SEVERITY_RANK[sel.min_severity]

    def keep(finding: Finding, path: str) -> bool:
        if _off_by_pattern(per_file, finding, path):
            return False
        return SEVERITY_RANK[finding.severity] <= floor and sel.allows(finding.rule, finding.category, finding.severity)

    return sel, keep


def scan_source(
    data: bytes,
    filename: str | None = None,
    *,
    root: str | os.PathLike[str] | None = None,
    selection: Selection | None = None,
    config: Config | None = None,
    max_file_size_mb: float | None = None,
) -> Report:
    """Scan one file's bytes that are not on disk (``mlsleuth scan -`` reads them from standard input).

    ``filename`` (e.g. the editor's path of the buffer) is where the text is reported and the path that
    ``per-file-ignores`` and a notebook's ``.ipynb`` suffix are judged by; without it the file is shown
    as ``-``. The file's own rules run as in :func:`scan_paths`; rules that follow a value into another
    module see only this text (no project around it is read).
    """
    started = time.perf_counter()
    root_path = Path(os.path.abspath(root if root is not None else os.getcwd()))
    shown = filename or "-"
    full = os.path.normpath(str(root_path / shown)) if filename else str(root_path / "-")
    if config is None:
        config = load_config(Path(full))
    plan = _plan([full], root_path, config, selection, max_file_size_mb)
    display = discovery.display_path(full, str(root_path)) if filename else "-"
    kind = "ipynb" if shown.endswith(".ipynb") else "py"
    cap = plan.limit_bytes * (NOTEBOOK_SIZE_FACTOR if kind == "ipynb" else 1)
    report = Report(tool="scan")
    suppressed = 0
    if len(data) > cap:
        report.errors = [_too_large(display, len(data), cap, plan.limit_mb)]
        payload: dict[str, Any] = {}
    else:
        payload = analyze_blob(display, data, kind, True, plan.rules, plan.limit_bytes)
    floor = SEVERITY_RANK[plan.selection.min_severity]
    for raw in payload.get("findings", []):
        location = raw.get("location", {})
        finding = Finding.model_validate({**raw, "location": {**location, "path": location.get("path") or display}})
        if _ignored_here(plan, finding, full):
            suppressed += 1
            continue
        if SEVERITY_RANK[finding.severity] <= floor and plan.selection.allows(finding.rule, finding.category, finding.severity):
            report.findings.append(finding)
    report.errors += [ErrorEntry.model_validate({**raw, "path": display}) for raw in payload.get("errors", [])]
    stats: dict[str, Any] = {
        "paths": ["-"],
        "stdin_filename": filename,
        "parsed": int(bool(payload.get("parsed"))),
        "suppressed": suppressed + int(payload.get("suppressed", 0)),
        "rules_active": len(plan.rules),
        "seconds": round(time.perf_counter() - started, 4),
    }
    notes = [f"{display}: {note}" for note in payload.get("notes", [])]
    if notes:
        stats["notes"] = notes
    report.finalize(stats=stats)
    report.summary.text = f"{report.summary.text} (standard input, as {display})"
    return report


def _needs_decoding_to_tell(data: bytes) -> bool:
    """True for files whose bytes are not ASCII-compatible (UTF-16), where a byte search proves nothing."""
    return data.startswith((b"\xff\xfe", b"\xfe\xff"))


def _too_large(display: str, size: int, cap: int, limit_mb: float) -> ErrorEntry:
    return ErrorEntry(
        kind="file-too-large",
        path=display,
        message=(
            f"skipped: {size / 2**20:.1f} MiB is over the {cap / 2**20:g} MiB size limit; raise it with "
            f"`max-file-size = {max(limit_mb * 2, size / 2**20 * 1.1):.0f}` (MiB) under [tool.mlsleuth] or `--max-file-size`, "
            "or exclude the file if it is generated"
        ),
    )


def _analyze(
    tasks: list[Task],
    sel: Selection,
    rules: list,
    jobs: int | None,
    payloads: dict[int, dict[str, Any]],
    progress: Progress | None,
    done: int,
    total: int,
    project: ProjectIndex | None = None,
) -> tuple[int, str | None]:
    """Analyse ``tasks`` serially or in a process pool; fill ``payloads``. Returns (jobs used, note)."""
    if jobs is not None and jobs < 1:
        raise ConfigError("jobs must be at least 1")
    want = jobs if jobs is not None else _default_jobs()
    volume = sum(len(t[2]) for t in tasks)
    parallel = want > 1 and len(tasks) >= (2 if jobs is not None else PARALLEL_MIN_FILES) and (jobs is not None or volume >= PARALLEL_MIN_BYTES)
    if parallel:
        try:
            return _analyze_pool(tasks, sel, min(want, len(tasks)), payloads, progress, done, total, project), None
        except Exception as exc:  # noqa: BLE001 - e.g. no /dev/shm, a killed worker: finish serially
            note = f"the worker pool failed ({type(exc).__name__}: {exc}); the remaining files were scanned in one process"
            remaining = [t for t in tasks if t[0] not in payloads]
            _analyze_serial(remaining, rules, payloads, progress, total - len(remaining), total, project)
            return 1, note
    _analyze_serial(tasks, rules, payloads, progress, done, total, project)
    return 1, None


def _worker_args(sel: Selection, project: ProjectIndex | None) -> tuple:
    if project is None:
        return (sel,)
    return (sel, project.files, project.roots, project.max_bytes)


def _analyze_serial(tasks, rules, payloads, progress, done, total, project: ProjectIndex | None = None) -> None:
    for index, display, data, kind, explicit, limit, path in tasks:
        payloads[index] = analyze_blob(display, data, kind, explicit, rules, limit, project, path)
        done += 1
        if progress is not None:
            progress(done, total)


def _analyze_pool(tasks, sel, workers, payloads, progress, done, total, project: ProjectIndex | None = None) -> int:
    from concurrent.futures import as_completed

    # Big files first, then round-robin into chunks, so workers finish together.
    order = sorted(tasks, key=lambda t: -len(t[2]))
    n_chunks = min(len(order), workers * 8)
    chunks: list[list] = [[] for _ in range(n_chunks)]
    for i, task in enumerate(order):
        chunks[i % n_chunks].append(task)
    with ProcessPoolExecutor(max_workers=workers, mp_context=_pool_context(), initializer=_init_worker, initargs=_worker_args(sel, project)) as pool:
        futures = [pool.submit(_run_chunk, chunk) for chunk in chunks if chunk]
        for future in as_completed(futures):
            for index, payload in future.result():
                payloads[index] = payload
                done += 1
            if progress is not None:
                progress(done, total)
    return workers
