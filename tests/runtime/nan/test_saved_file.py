"""The file `nan` saves (.mlsleuth/nan/nan_stepN.pt) loads with torch.load's default
weights_only=True: only tensors and plain Python values go into it (runtime/child/nan_snapshots.py)."""

from __future__ import annotations

import random
import sys
from collections import OrderedDict, namedtuple
from pathlib import Path

import pytest

torch = pytest.importorskip("torch")
np = pytest.importorskip("numpy")
sys.path.insert(0, str(Path(__file__).resolve().parents[3] / "server" / "mlsleuth" / "runtime" / "child"))

from nan_snapshots import rng_state, saveable, set_rng_state
from torch import nn

Pair = namedtuple("Pair", "x y")


class Opaque:
    def __repr__(self) -> str:
        return "<Opaque thing>"


def _round_trip(obj, tmp_path):
    path = tmp_path / "saved.pt"
    torch.save(saveable(obj), path)
    return torch.load(path)  # the default: weights_only=True


def test_rng_state_with_numpy_loads_and_still_restores_every_generator(tmp_path):
    random.seed(1)
    np.random.seed(2)
    torch.manual_seed(3)
    state = rng_state()
    assert "numpy" in state
    first = (random.random(), np.random.rand(), torch.rand(1).item())
    loaded = _round_trip(state, tmp_path)
    set_rng_state(loaded)
    assert (random.random(), np.random.rand(), torch.rand(1).item()) == first


def test_numpy_values_in_a_batch_become_tensors_and_python_numbers(tmp_path):
    batch = {
        "x": np.arange(6, dtype=np.float32).reshape(2, 3),
        "ids": np.array([3, 1], dtype=np.int64),
        "scale": np.float64(0.5),
        "n": np.int32(7),
        "words": np.array(["a", "b"]),
        "pair": Pair(torch.ones(2), np.zeros(2)),
        "other": Opaque(),
    }
    loaded = _round_trip(batch, tmp_path)
    assert torch.equal(loaded["x"], torch.arange(6, dtype=torch.float32).reshape(2, 3))
    assert loaded["ids"].dtype == torch.int64 and loaded["ids"].tolist() == [3, 1]
    assert loaded["scale"] == 0.5 and type(loaded["scale"]) is float
    assert loaded["n"] == 7 and type(loaded["n"]) is int
    assert loaded["words"] == ["a", "b"]
    assert isinstance(loaded["pair"], tuple) and torch.equal(loaded["pair"][0], torch.ones(2)) and torch.equal(loaded["pair"][1], torch.zeros(2, dtype=torch.float64))
    assert loaded["other"] == "<Opaque thing>"


def test_model_and_optimizer_state_load_back_into_fresh_objects(tmp_path):
    torch.manual_seed(0)
    model = nn.Sequential(nn.Linear(4, 4), nn.BatchNorm1d(4))
    opt = torch.optim.AdamW(model.parameters(), lr=1e-3, betas=(0.9, 0.99))
    model(torch.randn(8, 4)).sum().backward()
    opt.step()
    payload = {"model_state": model.state_dict(), "optimizer_state": opt.state_dict(), "batches": {3: (torch.randn(2, 4),)}, "step": 3}
    loaded = _round_trip(payload, tmp_path)
    assert isinstance(loaded["model_state"], OrderedDict)
    fresh = nn.Sequential(nn.Linear(4, 4), nn.BatchNorm1d(4))
    fresh.load_state_dict(loaded["model_state"])  # strict: every key and the version metadata came back
    assert all(torch.equal(a, b) for a, b in zip(fresh.state_dict().values(), model.state_dict().values()))
    fresh_opt = torch.optim.AdamW(fresh.parameters(), lr=1e-3)
    fresh_opt.load_state_dict(loaded["optimizer_state"])
    assert fresh_opt.param_groups[0]["betas"] == (0.9, 0.99)
    assert sorted(loaded["batches"]) == [3]


def test_plain_values_and_tensors_are_kept_as_they_are():
    t = torch.ones(3)
    payload = {"a": [1, 2.5, "s", None, True, b"raw"], "t": t, "size": torch.Size([2, 3]), "dtype": torch.float16}
    out = saveable(payload)
    assert out == {"a": [1, 2.5, "s", None, True, b"raw"], "t": t, "size": torch.Size([2, 3]), "dtype": torch.float16}
    assert out["t"] is t  # not copied
