"""Read sweep results into one run per (group, parameter value, seed).

Accepted inputs:

* CSV / TSV and JSON Lines (or a JSON list of objects), in a *long* layout
  (one row per run, or per logged step of a run) or a *wide* layout (one row
  per seed with a column per parameter value, or one row per value with a
  column per seed);
* a Weights & Biases runs export (config / summary columns, including
  columns holding JSON- or Python-encoded dicts, and a ``State`` column);
* an MLflow ``search_runs`` export (``params.*`` strings are converted to
  numbers, ``metrics.*``, ``status``);
* an Optuna ``trials_dataframe`` export (``params_*``, ``user_attrs_*``,
  ``value``, ``state``);
* a TensorBoard log directory (one run per directory holding event files;
  parameter and seed are read from the directory path, e.g.
  ``lr=0.01/seed=3``).

Only the standard library's csv and json modules parse text, and only the
columns a comparison needs are converted, so a million-row file loads in a
few seconds. Every problem a user can fix raises :class:`SweepInputError`
with what was wrong and what to do.
"""

from __future__ import annotations

import ast
import csv
import difflib
import gc
import json
import math
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from mlsleuth.sweep.table import SweepInputError, Table

PREFIXES = ("", "params.", "params_", "config.", "config/", "user_attrs_", "metrics.", "summary.", "summary_metrics.", "tags.", "system_attrs_", "hparams/", "hparams.")
STATUS_COLUMNS = ("state", "status", "State", "Status", "run_state", "attributes.status")
NAME_COLUMNS = ("Name", "name", "run_name", "tags.mlflow.runName", "run", "run_id", "number", "id", "ID")
FAILED_STATES = {"failed", "fail", "crashed", "killed", "error", "errored", "aborted"}
INCOMPLETE_STATES = {"running", "scheduled", "waiting", "queued", "pending", "pruned", "preempted", "preempting"}
MISSING_TEXT = {"", "null", "none", "na", "n/a", "nil", "<na>"}
REDUCTIONS = "last, best, mean, min, max or mean-last-K (e.g. mean-last-5)"


@dataclass
class Runs:
    """One entry per run, after reduction; arrays are aligned."""

    source: str
    param: str
    metric: str
    seed: str
    group_names: tuple[str, ...]
    numeric: bool
    log_spaced: bool
    value_keys: list[Any]  # distinct parameter values, sorted (floats or strings)
    value_labels: dict[Any, str]
    groups: list[tuple[str, ...]]
    values: list[Any]
    seeds: list[str]
    metric_values: np.ndarray
    status: list[str]  # ok, diverged, failed, incomplete, missing
    labels: list[str]
    raw_status: list[str]
    reduce: str | None
    notes: list[str] = field(default_factory=list)


# --------------------------------------------------------------------------
# Reading files
# --------------------------------------------------------------------------

def read_table(path: str | Path, confine_to: str | Path | None = None) -> Table:
    """Read a CSV/TSV, JSONL or JSON results file (or a TensorBoard log directory; with
    ``confine_to``, links in it that lead outside that folder are not followed)."""
    p = Path(path)
    if not p.exists():
        raise SweepInputError(f"{p}: no such file or directory")
    if p.is_dir():
        from mlsleuth.sweep.tensorboard import read_tensorboard_dir

        return read_tensorboard_dir(p, confine_to=Path(confine_to) if confine_to is not None else None)
    suffix = p.suffix.lower()
    gz = suffix == ".gz"
    if gz:
        suffix = Path(p.stem).suffix.lower()
    gc_was_on = gc.isenabled()
    gc.disable()  # millions of small row objects would wake the cycle collector over and over
    try:
        with _open_text(p, gz) as fh:
            if suffix in (".jsonl", ".ndjson"):
                return _read_jsonl(fh, str(p))
            if suffix == ".json":
                return _read_json(fh, str(p))
            return _read_csv(fh, str(p), "\t" if suffix == ".tsv" else None)
    except UnicodeDecodeError as exc:
        raise SweepInputError(f"{p}: not UTF-8 text ({exc.reason}); export the results as UTF-8 CSV or JSONL") from None
    except RecursionError:
        raise SweepInputError(f"{p}: its JSON is nested too deeply to read (hundreds of levels); a results file holds flat records, one per run") from None
    except OSError as exc:
        raise SweepInputError(f"{p}: cannot read: {exc.strerror or exc}") from None
    finally:
        if gc_was_on:
            gc.enable()


def _open_text(p: Path, gz: bool):
    if gz:
        import gzip

        return gzip.open(p, "rt", encoding="utf-8-sig", newline="")
    return open(p, encoding="utf-8-sig", newline="")


def _read_csv(fh, source: str, delimiter: str | None) -> Table:
    sample = fh.read(65536)
    fh.seek(0)
    if not sample.strip():
        raise SweepInputError(f"{source}: the file is empty")
    if delimiter is None:
        first = sample.splitlines()[0]
        delimiter = max(",;\t|", key=first.count)
        if first.count(delimiter) == 0:
            delimiter = ","
    reader = csv.reader(fh, delimiter=delimiter)
    try:
        header = next(reader)
        rows = list(reader)
    except csv.Error as exc:
        raise SweepInputError(f"{source}: malformed CSV near line {reader.line_num}: {exc}") from None
    header = [h.strip() for h in header]
    if len(set(header)) != len(header):
        dup = sorted({h for h in header if header.count(h) > 1})
        raise SweepInputError(f"{source}: the header repeats column(s) {', '.join(map(repr, dup))}; give every column a unique name")
    width = len(header)
    lengths = set(map(len, rows))
    if 0 in lengths:  # blank lines
        rows = [row for row in rows if row]
        lengths.discard(0)
    bad = [i for i, row in enumerate(rows) if len(row) != width] if lengths != {width} else []
    if bad:
        i = bad[0]
        raise SweepInputError(
            f"{source}: line {i + 2} has {len(rows[i])} fields but the header has {width}"
            f" ({len(bad)} such line{'s' if len(bad) != 1 else ''}); check for unquoted delimiters or a truncated file"
        )
    if not rows:
        raise SweepInputError(f"{source}: the file has a header but no rows")
    cols = list(zip(*rows))
    del rows
    return Table(source, "csv", {h: list(c) for h, c in zip(header, cols)}, len(cols[0]))


def _flatten(obj: dict, prefix: str, out: dict) -> None:
    for key, value in obj.items():
        name = f"{prefix}{key}"
        if isinstance(value, dict):
            if set(value) <= {"value", "desc"} and "value" in value:  # old W&B config entries
                out[name] = value["value"]
            else:
                _flatten(value, name + ".", out)
        else:
            out[name] = value


def _records_to_table(records: list[dict], source: str, kind: str, row_numbers: list[int] | None) -> Table:
    if not records:
        raise SweepInputError(f"{source}: no records found")
    flat_records = []
    names: dict[str, None] = {}
    for rec in records:
        flat: dict[str, Any] = {}
        _flatten(rec, "", flat)
        flat_records.append(flat)
        for k in flat:
            names.setdefault(k, None)
    columns = {name: [r.get(name) for r in flat_records] for name in names}
    return Table(source, kind, columns, len(records), row_numbers)


def _read_jsonl(fh, source: str) -> Table:
    records, numbers = [], []
    for lineno, line in enumerate(fh, 1):
        if not line.strip():
            continue
        try:
            rec = json.loads(line)
        except json.JSONDecodeError as exc:
            raise SweepInputError(f"{source}: line {lineno} is not valid JSON ({exc.msg}); each line must hold one JSON object") from None
        if not isinstance(rec, dict):
            raise SweepInputError(f"{source}: line {lineno} holds a {type(rec).__name__}, not a JSON object")
        records.append(rec)
        numbers.append(lineno)
    return _records_to_table(records, source, "jsonl", numbers)


def _read_json(fh, source: str) -> Table:
    try:
        data = json.load(fh)
    except json.JSONDecodeError as exc:
        raise SweepInputError(f"{source}: not valid JSON (line {exc.lineno}: {exc.msg})") from None
    if isinstance(data, dict):
        for key in ("runs", "trials", "data", "records"):
            if isinstance(data.get(key), list):
                data = data[key]
                break
    if not isinstance(data, list) or not all(isinstance(r, dict) for r in data):
        raise SweepInputError(f"{source}: expected a JSON list of objects (one per run), or JSON Lines")
    return _records_to_table(data, source, "json", None)


def _parse_dict_cell(cell: Any) -> dict | None:
    if isinstance(cell, dict):
        return cell
    if not isinstance(cell, str):
        return None
    text = cell.strip()
    if not (text.startswith("{") and text.endswith("}")):
        return None
    try:
        value = json.loads(text)
    except json.JSONDecodeError:
        try:
            value = ast.literal_eval(text)  # pandas writes Python reprs of dicts
        except (ValueError, SyntaxError, MemoryError, RecursionError):
            return None
    return value if isinstance(value, dict) else None


def expand_dict_columns(table: Table) -> None:
    """Add ``col.key`` columns for columns whose cells are encoded dicts (W&B ``config``/``summary``)."""
    if table.expanded:
        return
    table.expanded = True
    for name in list(table.columns):
        cells = table.columns[name]
        first = next((c for c in cells if c not in (None, "")), None)
        if _parse_dict_cell(first) is None:
            continue
        parsed = []
        for i, cell in enumerate(cells):
            if cell in (None, ""):
                parsed.append({})
                continue
            d = _parse_dict_cell(cell)
            if d is None:
                raise SweepInputError(f"{table.source}: column {name!r} holds encoded dicts but {table.row_label(i)} does not parse as one")
            flat: dict[str, Any] = {}
            _flatten(d, "", flat)
            parsed.append(flat)
        keys: dict[str, None] = {}
        for d in parsed:
            for k in d:
                keys.setdefault(k, None)
        for k in keys:
            new = f"{name}.{k}"
            if new not in table.columns:
                table.columns[new] = [d.get(k) for d in parsed]


# --------------------------------------------------------------------------
# Column resolution
# --------------------------------------------------------------------------

def _candidates(name: str, columns) -> list[str]:
    found = [p + name for p in PREFIXES if p + name in columns]
    return list(dict.fromkeys(found))


def resolve_column(table: Table, name: str, role: str, *, required: bool = True) -> str | None:
    """The column holding ``name`` (allowing export prefixes such as ``params.``); clear error if absent."""
    found = _candidates(name, table.columns)
    if not found and not table.expanded:
        expand_dict_columns(table)
        found = _candidates(name, table.columns)
    if len(found) == 1 or (found and found[0] == name):
        return found[0]
    if found:
        raise SweepInputError(
            f"{table.source}: {role} {name!r} matches several columns ({', '.join(found)}); pass the full column name"
        )
    if not required:
        return None
    raise SweepInputError(missing_column_message(table, name, role))


def missing_column_message(table: Table, name: str, role: str, extra: str = "") -> str:
    cols = list(table.columns)
    stripped = {}
    for c in cols:
        for p in PREFIXES[1:]:
            if c.startswith(p):
                stripped[c[len(p):]] = c
    close = difflib.get_close_matches(name, cols, n=3, cutoff=0.6)
    low = name.lower()
    close += [c for c in cols if c not in close and len(c) >= 3 and (low in c.lower() or c.lower() in low)]
    close += [stripped[s] for s in difflib.get_close_matches(name, list(stripped), n=3, cutoff=0.6) if stripped[s] not in close]
    shown = ", ".join(cols[:40]) + (f", ... ({len(cols)} in all)" if len(cols) > 40 else "")
    hint = f" Did you mean {', '.join(repr(c) for c in close[:3])}?" if close else ""
    return f"{table.source}: no column for the {role} {name!r}.{hint} Columns: {shown}.{extra}"


# --------------------------------------------------------------------------
# Cell conversion
# --------------------------------------------------------------------------

def _to_float(cell: Any) -> float | None:
    """A number, NaN/inf kept; None for a missing cell; raises ValueError for text."""
    if cell is None:
        return None
    if isinstance(cell, bool):
        raise ValueError  # noqa: TRY004 - the caller reports every non-number alike
    if isinstance(cell, (int, float)):
        return float(cell)
    text = str(cell).strip()
    if text.lower() in MISSING_TEXT:
        return None
    return float(text)


def metric_array(table: Table, col: str, cells: list[Any]) -> tuple[np.ndarray, np.ndarray]:
    """(values, missing) for a metric column; text that is not a number is an error."""
    try:
        if table.kind != "csv" and any(type(c) is bool for c in cells):
            raise TypeError("booleans are not metric values")
        values = np.fromiter(map(float, cells), float, len(cells))
        return values, np.zeros(values.size, bool)
    except (ValueError, TypeError):
        pass  # empty cells, None, booleans or text: sort them out one by one below
    out = np.empty(len(cells))
    missing = np.zeros(len(cells), bool)
    bad = []
    for i, cell in enumerate(cells):
        try:
            v = _to_float(cell)
        except (ValueError, TypeError):
            bad.append(i)
            out[i] = np.nan
            continue
        if v is None:
            missing[i] = True
            out[i] = np.nan
        else:
            out[i] = v
    if bad:
        shown = ", ".join(f"{cells[i]!r} ({table.row_label(i)})" for i in bad[:3])
        raise SweepInputError(
            f"{table.source}: metric column {col!r} has {len(bad)} value(s) that are not numbers: {shown}."
            " Leave failed runs' metric empty (or NaN for a diverged run) and record the failure in a state/status column."
        )
    return out, missing


def _map_cells(cells: list[Any], fn) -> list[Any]:
    """``[fn(c) for c in cells]``, computing ``fn`` once per distinct cell (columns repeat a few values)."""
    try:
        memo = {c: None for c in dict.fromkeys(cells)}
    except TypeError:  # unhashable cells (JSON lists or dicts)
        return [fn(c) for c in cells]
    if any(type(c) is bool for c in memo) and any(type(c) in (int, float) for c in memo):
        return [fn(c) for c in cells]  # True == 1 would share a memo entry
    for c in memo:
        memo[c] = fn(c)
    return list(map(memo.__getitem__, cells))


def _canonical_seed(cell: Any) -> str:
    if cell is None:
        return ""
    if isinstance(cell, float) and cell.is_integer():
        return str(int(cell))
    text = str(cell).strip()
    try:
        f = float(text)
        if math.isfinite(f) and f.is_integer() and re.fullmatch(r"[+-]?\d+(\.0*)?", text):
            return str(int(f))
    except ValueError:
        pass
    return text


def _value_text(cell: Any) -> str:
    if cell is None:
        return ""
    if isinstance(cell, bool):
        return str(cell)
    if isinstance(cell, (dict, list)):
        return json.dumps(cell, sort_keys=True)
    if isinstance(cell, float) and cell.is_integer() and abs(cell) < 1e16:
        return str(int(cell))
    return str(cell).strip()


def _normalise_status(cell: Any) -> str:
    text = str(cell or "").strip().lower()
    text = text.removeprefix("trialstate.")
    return text


def parse_reduce(reduce: str | None) -> tuple[str, int] | None:
    """Parse a reduction spec: last, best, mean, min, max, mean-last-K."""
    if reduce is None:
        return None
    r = reduce.strip().lower()
    m = re.fullmatch(r"mean-last[-:]?(\d+)", r)
    if m:
        k = int(m.group(1))
        if k < 1:
            raise SweepInputError("mean-last-K needs K >= 1")
        return "mean-last", k
    if r in ("last", "best", "mean", "min", "max"):
        return r, 0
    raise SweepInputError(f"unknown reduction {reduce!r}; use {REDUCTIONS}")


# --------------------------------------------------------------------------
# Layouts
# --------------------------------------------------------------------------

_META = {c.lower() for c in STATUS_COLUMNS + NAME_COLUMNS} | {"step", "_step", "epoch", "global_step"}


def _wide_columns(table: Table, exclude: set[str], key_name: str) -> list[tuple[str, str]] | None:
    """Columns that look like the values of ``key_name`` (``name=v`` headers, or all numbers)."""
    rest = [c for c in table.columns if c not in exclude and c.lower() not in _META]
    if len(rest) < 2:
        return None
    prefixed = [c for c in rest if c.startswith(f"{key_name}=")]
    if len(prefixed) == len(rest):
        return [(c, c[len(key_name) + 1:]) for c in rest]
    try:
        [float(c) for c in rest]
    except ValueError:
        return None
    return [(c, c) for c in rest]


def _melt(table: Table, id_col: str, id_role: str, value_cols: list[tuple[str, str]], group_cols: list[str]) -> dict[str, list[Any]]:
    """Turn a wide table into long columns: (id, key, cell, groups...)."""
    ids, keys, cells = [], [], []
    groups: dict[str, list[Any]] = {g: [] for g in group_cols}
    rows = []
    for col, key in value_cols:
        column = table.columns[col]
        ids.extend(table.columns[id_col])
        keys.extend([key] * table.n_rows)
        cells.extend(column)
        rows.extend(range(table.n_rows))
        for g in group_cols:
            groups[g].extend(table.columns[g])
    return {"id": ids, "key": keys, "metric": cells, "row": rows, **{f"group:{g}": v for g, v in groups.items()}}


# --------------------------------------------------------------------------
# Building runs
# --------------------------------------------------------------------------

def load_runs(
    source: str | Path | Table | list[dict],
    *,
    param: str,
    metric: str,
    seed: str,
    groups: list[str] | tuple[str, ...] = (),
    lower_is_better: bool = False,
    reduce: str | None = None,
    step: str | None = None,
    layout: str = "auto",
    categorical: bool = False,
    confine_to: str | Path | None = None,
) -> Runs:
    """Read ``source`` and return one run per (group, value, seed), reduced and classified.
    ``confine_to``: see :func:`read_table`."""
    if isinstance(source, Table):
        table = source
    elif isinstance(source, list):
        try:
            table = _records_to_table(source, "<records>", "json", None)
        except RecursionError:
            raise SweepInputError("the records are nested too deeply to read; pass flat records, one per run") from None
    else:
        table = read_table(source, confine_to)
    if table.kind == "tensorboard":
        from mlsleuth.sweep.tensorboard import with_path_columns

        with_path_columns(table, [param, seed, *groups])
    if layout not in ("auto", "long", "wide"):
        raise SweepInputError(f"unknown layout {layout!r}; use auto, long or wide")
    reduction = parse_reduce(reduce)
    if table.kind == "tensorboard" and reduction is None:
        reduction = ("last", 0)

    group_cols = [resolve_column(table, g, "group column") for g in groups]
    status_col = next((c for c in STATUS_COLUMNS if c in table.columns), None)
    name_col = next((c for c in NAME_COLUMNS if c in table.columns), None)
    step_col = resolve_column(table, step, "step column") if step else None
    if step_col is None and table.kind == "tensorboard":
        step_col = "step"

    param_col = resolve_column(table, param, "parameter", required=False)
    seed_col = resolve_column(table, seed, "seed column", required=False)
    metric_col = resolve_column(table, metric, "metric", required=False)
    n = table.n_rows
    row_index: list[int]

    wide_hint = (
        " For a wide table (a row per seed with a column per value), name the value columns"
        f" '{param}=VALUE' or plain numbers, or pass --layout wide."
    )
    if layout == "long" or (layout == "auto" and param_col and seed_col and metric_col):
        for col, name, role in ((param_col, param, "parameter"), (seed_col, seed, "seed column"), (metric_col, metric, "metric")):
            if col is None:
                raise SweepInputError(missing_column_message(table, name, role, wide_hint if layout == "auto" else ""))
        value_cells = table.columns[param_col]
        seed_cells = table.columns[seed_col]
        metric_cells = table.columns[metric_col]
        group_cells = [table.columns[g] for g in group_cols]
        row_index = list(range(n))
        layout_used = "long"
    else:
        exclude = set(group_cols) | {c for c in (status_col, name_col, step_col) if c}
        melted = None
        if seed_col and not param_col:
            value_cols = _wide_columns(table, exclude | {seed_col}, param)
            if value_cols is None and layout == "wide":
                value_cols = [(c, c) for c in table.columns if c not in exclude | {seed_col} and c.lower() not in _META]
            if value_cols:
                melted = _melt(table, seed_col, "seed", value_cols, group_cols)
                seed_cells, value_cells = melted["id"], melted["key"]
        elif param_col and not seed_col:
            seed_cols = _wide_columns(table, exclude | {param_col}, seed)
            if seed_cols is None and layout == "wide":
                seed_cols = [(c, c) for c in table.columns if c not in exclude | {param_col} and c.lower() not in _META]
            if seed_cols:
                melted = _melt(table, param_col, "value", seed_cols, group_cols)
                value_cells, seed_cells = melted["id"], melted["key"]
        if melted is None:
            missing = [(n_, r) for c, n_, r in ((param_col, param, "parameter"), (seed_col, seed, "seed column"), (metric_col, metric, "metric")) if c is None]
            name, role = missing[0] if missing else (metric, "metric")
            raise SweepInputError(missing_column_message(table, name, role, wide_hint if not (param_col and seed_col) else ""))
        metric_cells = melted["metric"]
        group_cells = [melted[f"group:{g}"] for g in group_cols]
        row_index = melted["row"]
        metric_col = metric
        layout_used = "wide"
        if step_col:
            raise SweepInputError("--step applies to long layouts only (a wide table has one value per run)")

    # --- parameter values --------------------------------------------------
    value_text = _map_cells(value_cells, _value_text)
    distinct = list(dict.fromkeys(value_text))
    if "" in distinct:
        i = value_text.index("")
        raise SweepInputError(f"{table.source}: {table.row_label(row_index[i])} has no value for the parameter {param!r}; fill it in or drop the row")
    numeric_of: dict[str, float] = {}
    text_values = []
    for t in distinct:
        try:
            f = float(t)
            if math.isnan(f):
                raise ValueError
            numeric_of[t] = f
        except ValueError:
            text_values.append(t)
    numeric = not categorical and not text_values
    if not categorical and text_values and numeric_of:
        raise SweepInputError(
            f"{table.source}: the parameter {param!r} mixes numbers ({', '.join(list(numeric_of)[:3])}) and text"
            f" ({', '.join(repr(t) for t in text_values[:3])}). Fix the odd values, or pass --categorical to treat every value as a label."
        )
    if numeric:
        key_of = numeric_of
        labels: dict[Any, str] = {}
        for t in distinct:
            labels.setdefault(key_of[t], t)
        value_keys = sorted(labels)
    else:
        key_of = {t: t for t in distinct}
        labels = {t: t for t in distinct}
        value_keys = sorted(distinct, key=_natural_key)
    if len(value_keys) < 2:
        raise SweepInputError(
            f"{table.source}: the parameter {param!r} has only one value ({labels[value_keys[0]]}); a comparison needs at least two"
        )

    # --- seeds, groups, status ---------------------------------------------
    seed_text = _map_cells(seed_cells, _canonical_seed)
    if "" in set(seed_text):
        i = seed_text.index("")
        raise SweepInputError(f"{table.source}: {table.row_label(row_index[i])} has no seed; every run needs its seed to be paired")
    group_text = [_map_cells(cells, _value_text) for cells in group_cells]
    metric_values, missing = metric_array(table, metric_col, metric_cells)
    if status_col is not None:
        status_cells = table.columns[status_col]
        raw_status_rows = _map_cells([status_cells[r] for r in row_index] if layout_used == "wide" else status_cells, _normalise_status)
    else:
        raw_status_rows = None
    names_rows = table.columns[name_col] if name_col else None

    # --- one run per key -----------------------------------------------------
    vcode = {t: value_keys.index(key_of[t]) for t in distinct}
    seeds_sorted = sorted(set(seed_text), key=_natural_key)
    scode = {s: i for i, s in enumerate(seeds_sorted)}
    gtuples = list(zip(*group_text)) if group_text else [()] * len(seed_text)
    gdistinct = sorted(set(gtuples), key=lambda g: tuple(_natural_key(x) for x in g))
    gcode = {g: i for i, g in enumerate(gdistinct)}
    codes = (
        np.fromiter(map(gcode.__getitem__, gtuples), np.int64, len(gtuples)) * len(value_keys)
        + np.fromiter(map(vcode.__getitem__, value_text), np.int64, len(value_text))
    ) * len(seeds_sorted) + np.fromiter(map(scode.__getitem__, seed_text), np.int64, len(seed_text))

    if step_col is not None:
        steps, step_missing = metric_array(table, step_col, table.columns[step_col])
        if step_missing.any():
            i = int(np.flatnonzero(step_missing)[0])
            raise SweepInputError(f"{table.source}: {table.row_label(i)} has no value in the step column {step_col!r}")
        order = np.lexsort((steps, codes))
    else:
        order = np.argsort(codes, kind="stable")
    sorted_codes = codes[order]
    starts = np.flatnonzero(np.r_[True, sorted_codes[1:] != sorted_codes[:-1]])
    ends = np.r_[starts[1:], sorted_codes.size]
    dup = ends - starts > 1
    if dup.any() and reduction is None:
        examples = []
        for s, e in zip(starts[dup][:3], ends[dup][:3]):
            idx = order[s:e]
            c = int(sorted_codes[s])
            examples.append(
                f"{_describe_code(c, gdistinct, group_cols, value_keys, labels, seeds_sorted, param, seed)}: "
                + ", ".join(table.row_label(row_index[i]) for i in idx[:3]) + (" ..." if len(idx) > 3 else "")
            )
        raise SweepInputError(
            f"{table.source}: {int(dup.sum())} (value, seed) pair(s) have more than one row, e.g. {'; '.join(examples)}."
            f" If these are the steps of a training curve, pass --reduce ({REDUCTIONS}) and --step COLUMN;"
            " if they are different runs, add the column that tells them apart with --group."
        )

    out_groups, out_values, out_seeds, out_metric, out_status, out_labels, out_raw = [], [], [], [], [], [], []
    for s, e in zip(starts, ends):
        idx = order[s:e]
        c = int(sorted_codes[s])
        si = c % len(seeds_sorted)
        vi = (c // len(seeds_sorted)) % len(value_keys)
        gi = c // (len(seeds_sorted) * len(value_keys))
        series = metric_values[idx]
        miss = missing[idx]
        last = idx[-1]
        raw = raw_status_rows[last] if raw_status_rows is not None else ""
        if raw in FAILED_STATES:
            status = "failed"
        elif raw in INCOMPLETE_STATES:
            status = "incomplete"
        elif miss.all():
            status = "missing"
        else:
            series = series[~miss]
            if not np.isfinite(series[-1]) or (reduction is not None and reduction[0] != "last" and not np.isfinite(series).all()):
                status = "diverged"
            else:
                status = "ok"
        if status == "ok":
            value = _reduce(series, reduction, lower_is_better)
        elif status == "diverged":  # keep the non-finite value itself: it is the result
            value = float(series[~np.isfinite(series)][-1])
        else:
            value = math.nan
        out_groups.append(gdistinct[gi])
        out_values.append(value_keys[vi])
        out_seeds.append(seeds_sorted[si])
        out_metric.append(value)
        out_status.append(status)
        out_raw.append(raw)
        if names_rows is not None and names_rows[row_index[last]] not in (None, ""):
            name = str(names_rows[row_index[last]])
            out_labels.append(f"{name_col} {name}" if name.isdigit() else name)  # e.g. Optuna's "number 5"
        else:
            out_labels.append(table.row_label(row_index[last]))

    log_spaced = numeric and _looks_log_spaced(value_keys)
    notes = list(table.notes)
    if layout_used == "wide":
        notes.append("read as a wide table")
    return Runs(
        source=table.source,
        param=param_col or param,
        metric=metric_col,
        seed=seed_col or seed,
        group_names=tuple(group_cols),
        numeric=numeric,
        log_spaced=log_spaced,
        value_keys=value_keys,
        value_labels=labels,
        groups=out_groups,
        values=out_values,
        seeds=out_seeds,
        metric_values=np.array(out_metric, float),
        status=out_status,
        labels=out_labels,
        raw_status=out_raw,
        reduce=(f"{reduction[0]}-{reduction[1]}" if reduction and reduction[0] == "mean-last" else (reduction[0] if reduction else None)),
        notes=notes,
    )


def _reduce(series: np.ndarray, reduction: tuple[str, int] | None, lower_is_better: bool) -> float:
    if series.size == 0:
        return math.nan
    if reduction is None or reduction[0] == "last":
        return float(series[-1])
    kind, k = reduction
    if kind == "best":
        return float(series.min() if lower_is_better else series.max())
    if kind == "min":
        return float(series.min())
    if kind == "max":
        return float(series.max())
    if kind == "mean":
        return float(series.mean())
    return float(series[-k:].mean())


def _describe_code(c, gdistinct, group_cols, value_keys, labels, seeds, param, seed) -> str:
    si = c % len(seeds)
    vi = (c // len(seeds)) % len(value_keys)
    gi = c // (len(seeds) * len(value_keys))
    bits = [f"{param}={labels[value_keys[vi]]}", f"{seed}={seeds[si]}"]
    if group_cols:
        bits = [f"{g}={v}" for g, v in zip(group_cols, gdistinct[gi])] + bits
    return " ".join(bits)


def _natural_key(text: str):
    try:
        return (0, float(text), "")
    except ValueError:
        return (1, 0.0, text)


def _looks_log_spaced(values: list[float]) -> bool:
    """Positive values spanning at least a factor of 10 whose log-gaps are more even than their gaps."""
    v = np.asarray(values, float)
    if v.size < 3 or (v <= 0).any() or v.max() / v.min() < 10:
        return False
    lin = np.diff(v)
    logs = np.diff(np.log(v))
    return float(logs.std() / logs.mean()) < float(lin.std() / lin.mean())
