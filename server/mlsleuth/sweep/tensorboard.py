"""Scalar values from TensorBoard event files.

The ``tensorboard`` package's own loader reads the files when it is installed
(``pip install 'mlsleuth[tensorboard]'``; anyone who wrote the logs with
PyTorch's ``SummaryWriter`` has it already): it is the reference
implementation and checks every record's CRC. Without it, a small built-in
reader is used, and the report's notes say which reader ran. The built-in
reader decodes the TFRecord framing and just enough of the ``Event`` /
``Summary`` protocol buffers:

* TFRecord: ``uint64 length``, ``uint32 masked CRC32C(length)``, ``data``,
  ``uint32 masked CRC32C(data)``. The length checksum is verified (it catches
  a corrupt or misaligned file); a truncated last record, which is what a
  run that is still being written leaves behind, ends the file quietly. The
  data checksum is not verified (CRC32C is not in the standard library and a
  pure-Python loop over every byte would be slow on files full of images).
* ``Event``: ``step`` (field 2) and ``summary`` (field 5).
* ``Summary.Value``: ``tag`` (1) with either ``simple_value`` (2, what
  PyTorch's ``SummaryWriter.add_scalar`` writes) or a one-element numeric
  ``tensor`` (8, what TensorFlow 2's ``tf.summary.scalar`` writes).
  Histograms, images and text are skipped.

Each directory that directly holds ``events.out.tfevents.*`` files is one
run; its path relative to the log root is where the parameter value, seed
and group are read from (``lr=0.01/seed=3``, ``lr_0.01-seed_3``, ...).
"""

from __future__ import annotations

import math
import os
import re
import struct
from pathlib import Path

from mlsleuth.sweep.table import SweepInputError, Table

_CRC_TABLE: list[int] = []


def _crc32c(data: bytes) -> int:
    if not _CRC_TABLE:
        for n in range(256):
            c = n
            for _ in range(8):
                c = (c >> 1) ^ 0x82F63B78 if c & 1 else c >> 1
            _CRC_TABLE.append(c)
    crc = 0xFFFFFFFF
    for byte in data:
        crc = _CRC_TABLE[(crc ^ byte) & 0xFF] ^ (crc >> 8)
    return crc ^ 0xFFFFFFFF


def masked_crc32c(data: bytes) -> int:
    crc = _crc32c(data)
    return (((crc >> 15) | (crc << 17)) + 0xA282EAD8) & 0xFFFFFFFF


def read_frames(path: Path) -> list[tuple[int, bytes, int]]:
    """The records of a TFRecord file, in order: (byte offset, payload, stored masked CRC32C of the payload).

    Every length checksum is verified; a truncated last record (a run still being written) ends the list.
    """
    blob = path.read_bytes()
    out = []
    pos = 0
    while pos + 12 <= len(blob):
        header = blob[pos : pos + 8]
        (length,) = struct.unpack("<Q", header)
        (length_crc,) = struct.unpack("<I", blob[pos + 8 : pos + 12])
        if masked_crc32c(header) != length_crc:
            raise SweepInputError(f"{path}: corrupt event file (bad record-length checksum at byte {pos})")
        start = pos + 12
        if start + length + 4 > len(blob):
            break  # a record still being written
        (data_crc,) = struct.unpack("<I", blob[start + length : start + length + 4])
        out.append((pos, blob[start : start + length], data_crc))
        pos = start + length + 4
    return out


def read_records(path: Path) -> list[bytes]:
    """The payloads of a TFRecord file, in order."""
    return [payload for _, payload, _ in read_frames(path)]


def _varint(buf: bytes, pos: int) -> tuple[int, int]:
    result = shift = 0
    while True:
        if pos >= len(buf):
            raise ValueError("truncated varint")
        b = buf[pos]
        pos += 1
        result |= (b & 0x7F) << shift
        if not b & 0x80:
            return result, pos
        shift += 7


def _fields(buf: bytes):
    """Yield (field number, wire type, value) for a protobuf message."""
    pos = 0
    while pos < len(buf):
        key, pos = _varint(buf, pos)
        number, wire = key >> 3, key & 7
        if wire == 0:
            value, pos = _varint(buf, pos)
        elif wire == 1:
            value, pos = buf[pos : pos + 8], pos + 8
        elif wire == 2:
            size, pos = _varint(buf, pos)
            value, pos = buf[pos : pos + size], pos + size
        elif wire == 5:
            value, pos = buf[pos : pos + 4], pos + 4
        else:
            raise ValueError(f"unsupported wire type {wire}")
        if pos > len(buf):
            raise ValueError("truncated field")
        yield number, wire, value


# TensorProto dtype enum values we can read as one number.
_DT_FLOAT, _DT_DOUBLE, _DT_INT32, _DT_INT64, _DT_HALF, _DT_BFLOAT16 = 1, 2, 3, 9, 19, 14


def _tensor_scalar(buf: bytes) -> float | None:
    dtype = 0
    content = b""
    floats: list[float] = []
    ints: list[int] = []
    dims: list[int] = []
    for number, wire, value in _fields(buf):
        if number == 1 and wire == 0:
            dtype = value
        elif number == 2 and wire == 2:  # TensorShapeProto: dim = 2 { size = 1 }
            for dn, dw, dv in _fields(value):
                if dn == 2 and dw == 2:
                    size = 0
                    for sn, sw, sv in _fields(dv):
                        if sn == 1 and sw == 0:
                            size = sv
                    dims.append(size)
        elif number == 4 and wire == 2:
            content = value
        elif number == 5 and wire in (2, 5):  # float_val: packed, or one fixed32
            floats.extend(struct.unpack(f"<{len(value) // 4}f", value))
        elif number == 6 and wire in (2, 1):  # double_val: packed, or one fixed64
            floats.extend(struct.unpack(f"<{len(value) // 8}d", value))
        elif number in (7, 10) and wire == 2:  # int_val / int64_val, packed varints
            p = 0
            while p < len(value):
                v, p = _varint(value, p)
                ints.append(v)
        elif number in (7, 10) and wire == 0:
            ints.append(value)
        elif number in (5, 6, 7, 10):
            raise ValueError(f"tensor field {number} has wire type {wire}, which no writer produces")
    if math.prod(dims) != 1:
        return None
    if content:
        fmt = {_DT_FLOAT: "<f", _DT_DOUBLE: "<d", _DT_INT32: "<i", _DT_INT64: "<q"}.get(dtype)
        if fmt is None or struct.calcsize(fmt) != len(content):
            return None
        return float(struct.unpack(fmt, content)[0])
    if dtype in (_DT_FLOAT, _DT_DOUBLE) and len(floats) == 1:
        return floats[0]
    if dtype in (_DT_INT32, _DT_INT64) and len(ints) == 1:
        v = ints[0]
        return float(v - (1 << 64) if v >= 1 << 63 else v)
    return None


TENSORBOARD_HINT = "install the 'tensorboard' extra for CRC-checked reading: pip install 'mlsleuth[tensorboard]'"


def tensorboard_loader():
    """(EventFileLoader, make_ndarray, version) from the ``tensorboard`` package, or None when it is absent."""
    try:
        import tensorboard
        from tensorboard.backend.event_processing.event_file_loader import (
            EventFileLoader,
        )
        from tensorboard.util.tensor_util import make_ndarray
    except ImportError:
        return None
    return EventFileLoader, make_ndarray, getattr(tensorboard, "__version__", "?")


def read_scalars_tensorboard(path: Path, loader) -> dict[str, list[tuple[int, float]]]:
    """Every scalar in one event file, read by the ``tensorboard`` package's loader."""
    event_file_loader, make_ndarray, _version = loader
    out: dict[str, list[tuple[int, float]]] = {}
    events = 0
    try:
        for event in event_file_loader(str(path)).Load():
            events += 1
            if not event.HasField("summary"):
                continue
            for value in event.summary.value:
                kind = value.WhichOneof("value")
                if kind == "simple_value":
                    scalar = float(value.simple_value)
                elif kind == "tensor":
                    try:
                        array = make_ndarray(value.tensor)
                    except (ValueError, TypeError):
                        continue  # strings and other non-numeric tensors are not scalars
                    if array.size != 1 or array.dtype.kind not in "fiub":
                        continue
                    scalar = float(array.reshape(()))
                else:
                    continue  # histograms, images, audio
                out.setdefault(value.tag, []).append((int(event.step), scalar))
    except Exception as exc:  # noqa: BLE001 - the loader raises its own error types for damaged files
        raise SweepInputError(f"{path}: cannot decode the event file ({type(exc).__name__}: {exc}); is it a TensorBoard event file?") from None
    if events == 0 and path.stat().st_size > 0:
        raise SweepInputError(f"{path}: corrupt event file (the tensorboard loader found no intact record); remove it or re-export the run")
    frames = read_frames(path)  # the loader stops quietly at a bad checksum: count what the file holds
    if events < len(frames):
        at = frames[events][0]
        raise SweepInputError(
            f"{path}: corrupt event file (the tensorboard loader stopped after {events} of {len(frames)} records; "
            f"record {events + 1}, at byte {at}, fails its checksum); the rest of this run would be missing, so remove "
            "the file or re-export the run"
        )
    return out


def read_scalars(path: Path) -> dict[str, list[tuple[int, float]]]:
    """Every scalar in one event file, read by the built-in decoder: {tag: [(step, value), ...]} in file order."""
    out: dict[str, list[tuple[int, float]]] = {}
    for number_of_record, (offset, record, data_crc) in enumerate(read_frames(path), 1):
        step = 0
        summary = None
        found: list[tuple[str, float]] = []
        try:
            for number, wire, value in _fields(record):
                if number == 2 and wire == 0:
                    step = value - (1 << 64) if value >= 1 << 63 else value
                elif number == 5 and wire == 2:
                    summary = value
            if summary is None:
                continue
            for number, wire, value in _fields(summary):
                if number != 1 or wire != 2:
                    continue
                tag, scalar = None, None
                for vn, vw, vv in _fields(value):
                    if vn == 1 and vw == 2:
                        tag = vv.decode("utf-8", "replace")
                    elif vn == 2 and vw == 5:
                        scalar = struct.unpack("<f", vv)[0]
                    elif vn == 8 and vw == 2:
                        scalar = _tensor_scalar(vv)
                if tag is not None and scalar is not None:
                    found.append((tag, float(scalar)))
        except (ValueError, struct.error) as exc:
            raise SweepInputError(f"{path}: cannot decode an event record ({exc}); is this a TensorBoard event file?") from None
        # the data checksum of every record a value is taken from (small records: cheap in pure Python)
        if found and masked_crc32c(record) != data_crc:
            raise SweepInputError(
                f"{path}: corrupt event file (record {number_of_record}, at byte {offset}, fails its data checksum); "
                "remove the file or re-export the run"
            )
        for tag, scalar in found:
            out.setdefault(tag, []).append((step, scalar))
    return out


def extract_from_path(rel: str, name: str) -> str | None:
    """The value of ``name`` in a run path such as ``lr=0.01/seed_3`` or ``lr-1e-3_seed-2``."""
    number = r"[-+]?(?:\d+\.?\d*|\.\d+)(?:[eE][-+]?\d+)?"
    sep = r"(?:^|[\\/_,;\s.-])"
    end = r"(?=$|[\\/_,;\s])"
    n = re.escape(name)
    for pattern in (
        rf"{sep}{n}=([^\\/,;=\s]+?){end}",
        rf"{sep}{n}[=:_-]?({number}){end}",
        rf"{sep}{n}[=:]([^\\/,;=\s]+)",
    ):
        m = re.search(pattern, rel)
        if m:
            return m.group(1)
    return None


def _listing(names: list[str]) -> str:
    return ", ".join(names[:10]) + (f" and {len(names) - 10} more" if len(names) > 10 else "")


def event_files(root: Path, confine_to: Path | None = None) -> tuple[list[tuple[str, Path]], list[str]]:
    """The event files under ``root`` as (run folder relative to root, file), and notes.

    Symbolic links are followed (a run folder linked in from elsewhere is a run like any
    other), each real folder once. With ``confine_to`` a link whose target lies outside it
    is not followed; the notes name such links (never their targets), broken links, loops
    and folders that could not be listed, so nothing is left out without a word.
    """
    limit = confine_to.resolve() if confine_to is not None else None
    found: list[tuple[str, Path]] = []
    outside: list[str] = []
    broken: list[str] = []
    loops: list[str] = []
    unreadable: list[str] = []
    seen = {root.resolve()}
    stack: list[tuple[Path, str]] = [(root, "")]
    while stack:
        folder, rel = stack.pop()
        try:
            entries = sorted(os.scandir(folder), key=lambda e: e.name)
        except OSError:
            unreadable.append(rel or ".")
            continue
        for entry in entries:
            sub = f"{rel}/{entry.name}" if rel else entry.name
            path = Path(entry.path)
            try:
                if entry.is_symlink():
                    try:
                        target = path.resolve(strict=True)
                    except (OSError, RuntimeError):
                        broken.append(sub)
                        continue
                    if limit is not None and not target.is_relative_to(limit):
                        outside.append(sub)
                        continue
                is_dir = entry.is_dir()
                if is_dir:
                    real = path.resolve()
                    if real in seen:
                        loops.append(sub)
                        continue
                    seen.add(real)
                    stack.append((path, sub))
                elif "tfevents" in entry.name and entry.is_file():
                    found.append((rel or ".", path))
            except OSError:
                unreadable.append(sub)
    notes = []
    if outside:
        notes.append(f"not read: {len(outside)} symbolic link(s) that lead outside the served root ({_listing(outside)})")
    if broken:
        notes.append(f"not read: {len(broken)} broken symbolic link(s) ({_listing(broken)})")
    if loops:
        notes.append(f"not read twice: {len(loops)} link(s) back to a folder already read ({_listing(loops)})")
    if unreadable:
        notes.append(f"could not be listed: {_listing(unreadable)}")
    found.sort(key=lambda item: (item[0], item[1].name))
    return found, notes


def read_tensorboard_dir(root: Path, *, use_package: bool = True, confine_to: Path | None = None) -> Table:
    """Read every run under a log directory into long columns: run, step, and one column per tag.

    Columns: ``run`` (the relative directory), ``step``, and every scalar tag;
    the parameter, seed and group columns are filled later from the path
    by :func:`with_path_columns`. ``use_package=False`` forces the built-in decoder.
    ``confine_to`` (a server's root): links leading outside it are not followed (see :func:`event_files`).
    """
    files, link_notes = event_files(root, confine_to)
    if not files:
        extra = f" ({'; '.join(link_notes)})" if link_notes else ""
        raise SweepInputError(f"{root}: a directory was given but it holds no TensorBoard event files (events.out.tfevents.*){extra}")
    loader = tensorboard_loader() if use_package else None
    runs: dict[str, dict[str, list[tuple[int, float]]]] = {}
    for rel, f in files:
        bucket = runs.setdefault(rel, {})
        scalars = read_scalars_tensorboard(f, loader) if loader is not None else read_scalars(f)
        for tag, points in scalars.items():
            bucket.setdefault(tag, []).extend(points)
    tags = sorted({t for r in runs.values() for t in r})
    columns: dict[str, list] = {"run": [], "step": [], **{t: [] for t in tags}}
    for rel, by_tag in runs.items():
        steps = sorted({s for pts in by_tag.values() for s, _ in pts})
        index = {s: i for i, s in enumerate(steps)}
        block = {t: [None] * len(steps) for t in tags}
        for t, pts in by_tag.items():
            for s, v in pts:
                block[t][index[s]] = v
        if not steps:  # a run that logged no scalars at all
            steps, block = [0], {t: [None] for t in tags}
        columns["run"].extend([rel] * len(steps))
        columns["step"].extend(steps)
        for t in tags:
            columns[t].extend(block[t])
    note = (f"event files read with the tensorboard package {loader[2]}" if loader is not None
            else f"event files read with mlsleuth's built-in decoder (checksums verified on every record a scalar came from); {TENSORBOARD_HINT}")
    return Table(str(root), "tensorboard", columns, len(columns["run"]), notes=[note, *link_notes])


def with_path_columns(table: Table, names: list[str]) -> None:
    """Add a column for each of ``names`` read from the run paths; error naming the runs that lack one."""
    runs = table.columns["run"]
    for name in names:
        if name in table.columns:
            continue
        memo: dict[str, str | None] = {}
        cells = []
        for rel in runs:
            if rel not in memo:
                memo[rel] = extract_from_path(rel, name)
            cells.append(memo[rel])
        lacking = sorted({r for r, v in memo.items() if v is None})
        if lacking:
            raise SweepInputError(
                f"{table.source}: cannot read {name!r} from the run director{'ies' if len(lacking) > 1 else 'y'} "
                f"{', '.join(repr(r) for r in lacking[:3])}{' ...' if len(lacking) > 3 else ''}."
                f" Name run directories with the settings, e.g. {name}=VALUE/seed=0 (one run per directory)."
            )
        table.columns[name] = cells
