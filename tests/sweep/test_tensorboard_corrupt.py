"""A damaged TensorBoard event file is reported, whichever reader runs (issue 16, item 10).

The tensorboard package's loader stops quietly at a record whose checksum fails (the
rest of the run vanished from the comparison), and the built-in decoder did not check
data checksums (a flipped bit changed a metric value).
"""

from __future__ import annotations

import shutil
import struct
from pathlib import Path

import pytest
from mlsleuth.sweep.table import SweepInputError
from mlsleuth.sweep.tensorboard import read_tensorboard_dir

DATA = Path(__file__).parent / "data" / "tb"


def _record_offsets(blob: bytes) -> list[tuple[int, int]]:
    out, pos = [], 0
    while pos + 12 <= len(blob):
        (length,) = struct.unpack("<Q", blob[pos : pos + 8])
        out.append((pos, length))
        pos += 12 + length + 4
    return out


def corrupt_copy(tmp_path: Path, record: int, where: str) -> Path:
    root = tmp_path / "tb"
    shutil.copytree(DATA, root)
    target = min(root.rglob("*tfevents*"))
    blob = bytearray(target.read_bytes())
    pos, length = _record_offsets(bytes(blob))[record]
    if where == "value":
        blob[pos + 12 + length - 2] ^= 0x01  # inside the float of a scalar
    elif where == "data-crc":
        blob[pos + 12 + length] ^= 0xFF
    target.write_bytes(bytes(blob))
    return root


@pytest.mark.parametrize("use_package", [True, False], ids=["tensorboard-package", "built-in"])
@pytest.mark.parametrize("where", ["value", "data-crc"])
def test_a_bad_data_checksum_is_reported_by_either_reader(tmp_path, use_package, where):
    if use_package:
        pytest.importorskip("tensorboard")
    root = corrupt_copy(tmp_path, 3, where)
    with pytest.raises(SweepInputError, match="corrupt event file"):
        read_tensorboard_dir(root, use_package=use_package)


@pytest.mark.parametrize("use_package", [True, False], ids=["tensorboard-package", "built-in"])
def test_an_intact_tree_and_a_truncated_last_record_still_read(tmp_path, use_package):
    if use_package:
        pytest.importorskip("tensorboard")
    root = tmp_path / "tb"
    shutil.copytree(DATA, root)
    target = min(root.rglob("*tfevents*"))
    target.write_bytes(target.read_bytes()[:-7])  # a run still being written
    table = read_tensorboard_dir(root, use_package=use_package)
    assert table.n_rows > 0


@pytest.mark.parametrize(
    "tensor_fields",
    [
        [(5, 0, 7)],  # float_val as a varint
        [(6, 5, b"\0\0\0\0")],  # double_val as 4 bytes
        [(7, 1, b"\0" * 8)],  # int_val as fixed64
        [(5, 2, b"\0\0\0")],  # packed floats cut short
    ],
    ids=["float-varint", "double-fixed32", "int-fixed64", "packed-short"],
)
def test_tensor_values_with_the_wrong_wire_type_are_an_error_not_a_crash(tmp_path, tensor_fields):
    """Found by the fuzz suite: a scalar tensor whose value field has an unexpected wire type."""
    import random

    from fuzz.inputs import _field, _frame, _scalar_event

    tensor = _field(1, 0, 1) + _field(2, 2, _field(2, 2, _field(1, 0, 1)))
    for number, wire, value in tensor_fields:
        tensor += _field(number, wire, value)
    bad = _field(2, 0, 3) + _field(5, 2, _field(1, 2, _field(1, 2, b"val/acc") + _field(8, 2, tensor)))
    rng = random.Random(0)
    run = tmp_path / "tb" / "lr=0.1" / "seed=0"
    run.mkdir(parents=True)
    (run / "events.out.tfevents.1.h").write_bytes(_frame(_scalar_event(1, 0.5), rng, False) + _frame(bad, rng, False))
    try:
        table = read_tensorboard_dir(tmp_path / "tb", use_package=False)
    except SweepInputError:
        return
    assert table.n_rows >= 1
