"""``scan/analysis/tensor_shapes.py`` and its parts (shape_arithmetic, layer_shapes, certain_bindings, batch_loaders):
ranks and symbolic axes, and "unknown" wherever they are not certain."""

from __future__ import annotations

import ast
import textwrap

import pytest

from mlsleuth.scan.analysis.context import FileContext
from mlsleuth.scan.analysis.shape_arithmetic import Shape, broadcast
from mlsleuth.scan.analysis.tensor_shapes import shape_of


def shapes(source: str) -> dict[str, str | None]:
    """``{expression text: shape text}`` for every argument of every ``SHOW(...)`` call in ``source``."""
    ctx = FileContext.from_source(textwrap.dedent(source), "case.py")
    out = {}
    for node in ast.walk(ctx.tree):
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == "SHOW":
            for arg in node.args:
                found = shape_of(ctx, arg)
                out[ctx.segment(arg)] = found.text() if found is not None else None
    return out


TABULAR = """
    import pandas as pd
    import torch
    from torch import nn
    from torch.utils.data import DataLoader, TensorDataset

    df = pd.read_csv("d.csv")
    X = torch.tensor(df.drop(columns=["y"]).values, dtype=torch.float32)
    y = torch.tensor(df["y"].values, dtype=torch.float32)
    Y2 = torch.tensor(df[["a", "b"]].values)
    loader = DataLoader(TensorDataset(X, y), batch_size=8)
    head = nn.Sequential(nn.Linear(4, 8), nn.ReLU(), nn.Linear(8, 1))
    for xb, yb in loader:
        pred = head(xb)
        SHOW(X, y, Y2, xb, yb, pred, pred.squeeze(-1), pred.squeeze(), pred.view(-1), pred.flatten(),
             yb.unsqueeze(1), yb.view(-1, 1), yb.reshape(-1, 1), yb[:, None], pred[:, 0], pred.T,
             pred.mean(), pred.sum(dim=0), pred.mean(dim=1, keepdim=True), yb.float().cuda(), pred - yb,
             pred - yb.unsqueeze(1), 2 * pred + 1, torch.sigmoid(pred), yb.view_as(pred), torch.zeros(8), float(yb[0]))
"""


def test_tabular_batch_and_shape_methods():
    got = shapes(TABULAR)
    assert got["X"] == "(?, ?)"
    assert got["y"] == "(?,)"
    assert got["Y2"] == "(?, 2)"
    assert got["xb"] == "(N, ?)"
    assert got["yb"] == "(N,)"
    assert got["pred"] == "(N, 1)"
    assert got["pred.squeeze(-1)"] == got["pred.squeeze()"] == got["pred.view(-1)"] == got["pred.flatten()"] == "(N,)"
    assert got["yb.unsqueeze(1)"] == got["yb.view(-1, 1)"] == got["yb.reshape(-1, 1)"] == got["yb[:, None]"] == "(N, 1)"
    assert got["pred[:, 0]"] == "(N,)"
    assert got["pred.T"] == "(1, N)"
    assert got["pred.mean()"] == "()"
    assert got["pred.sum(dim=0)"] == "(1,)"
    assert got["pred.mean(dim=1, keepdim=True)"] == "(N, 1)"
    assert got["yb.float().cuda()"] == "(N,)"
    assert got["pred - yb"] == "(N, N)"  # the broadcast the loss rule warns about
    assert got["pred - yb.unsqueeze(1)"] == "(N, 1)"
    assert got["2 * pred + 1"] == got["torch.sigmoid(pred)"] == got["yb.view_as(pred)"] == "(N, 1)"
    assert got["torch.zeros(8)"] == "(8,)"
    assert got["float(yb[0])"] == "()"


def test_recurrent_outputs_batch_first_and_not_and_bidirectional():
    got = shapes("""
        import torch
        from torch import nn

        class Enc(nn.Module):
            def __init__(self):
                super().__init__()
                self.emb = nn.Embedding(1000, 16)
                self.lstm = nn.LSTM(16, 32, num_layers=2, batch_first=True, bidirectional=True)
                self.gru = nn.GRU(16, 20)

            def forward(self, ids):
                e = self.emb(ids)
                out, (h, c) = self.lstm(e)
                return out, h, out[:, -1], h[-1]

        enc = Enc()
        for ids, label in train_loader:
            out, h, last, final = enc(ids)
            SHOW(out, h, last, final)
    """)
    assert got == {"out": "(N, ?, 64)", "h": "(4, N, 32)", "last": "(N, 64)", "final": "(N, 32)"}


def test_datasets_per_sample_values():
    got = shapes("""
        import numpy as np
        import torch
        from torch.utils.data import Dataset, DataLoader

        class A(Dataset):
            def __getitem__(self, i):
                return self.x[i], float(self.y[i]), torch.tensor([self.y[i]]), np.array([1.0, 2.0]), [self.y[i]]

        class B(Dataset):
            def __getitem__(self, i):
                return {"pixels": self.x[i], "label": torch.tensor(3)}

        for a, b, c, d, e in DataLoader(A(), batch_size=4):
            SHOW(a, b, c, d, e)
        for batch in DataLoader(B(), batch_size=4):
            SHOW(batch["label"], batch["pixels"])
        for a, b, c, d, e in DataLoader(A(), batch_size=4, collate_fn=my_collate):
            SHOW(b)
    """)
    assert got["a"] == "(N, ...)"
    assert got["c"] == "(N, 1, ...)"  # one row of self.y[i], whose own shape is not known
    assert got["d"] == "(N, 2)"
    assert got["e"] is None  # default_collate makes a list of one batched tensor
    assert got['batch["label"]'] == "(N,)"
    assert got['batch["pixels"]'] == "(N, ...)"
    assert got["b"] is None  # the last loop's custom collate (one key per expression: the last SHOW wins)


def test_convolutions_pools_and_flatten():
    got = shapes("""
        from torch import nn

        net = nn.Sequential(nn.Conv2d(3, 8, 3), nn.BatchNorm2d(8), nn.ReLU(), nn.AdaptiveAvgPool2d((1, 1)))
        flat = nn.Flatten()
        for images, _ in loader:
            fmap = net(images)
            SHOW(fmap, flat(fmap), fmap.flatten(1))
    """)
    assert got == {"fmap": "(N, 8, 1, 1)", "flat(fmap)": "(N, ?)", "fmap.flatten(1)": "(N, ?)"}


@pytest.mark.parametrize("code", [
    # a binding in a branch that does not hold the use
    "out = model(x)\nif flag:\n    out = out.squeeze(-1)\nSHOW(out)",
    # a parameter with no callers, an attribute of an unknown object, a helper's result
    "SHOW(x)",
    "SHOW(cfg.target)",
    "SHOW(helper(x))",
    # a one-unit layer on an input of unknown shape; view with a runtime size
    "SHOW(nn.Linear(4, 1)(x))",
    "SHOW(t.view(*sizes))",
])
def test_unknown_stays_unknown(code):
    src = "import torch\nfrom torch import nn\n\ndef f(x, t, n, cfg, flag, model):\n" + textwrap.indent(code, "    ")
    got = shapes(src)
    assert set(got.values()) == {None}, got


def test_pandas_rows_and_bounded_slices():
    got = shapes("""
        import pandas as pd

        frame = pd.read_csv("d.csv")
        row = frame.iloc[3]
        series = frame["y"]
        SHOW(row["y"], series, frame[["a", "b"]], frame[frame["y"] > 0], series[:100], frame.values[:, 1:])
    """)
    assert got['row["y"]'] is None  # a field of one row: a scalar, not a column
    assert got["series"] == "(?,)"
    assert got['frame[["a", "b"]]'] == "(?, 2)"
    assert got['frame[frame["y"] > 0]'] is None
    assert got["series[:100]"] == "(?,)"
    assert got["frame.values[:, 1:]"] == "(?, ?)"


def test_broadcast_rules():
    assert broadcast(Shape(("N", 1)), Shape(("N",))) == Shape(("N", "N"))
    assert broadcast(Shape(("N", 3)), Shape((3,))) == Shape(("N", 3))
    assert broadcast(Shape(("N", 3)), Shape((4,))) is None
    assert broadcast(Shape(("N",), (), False), Shape(())) == Shape(("N",), (), False)
    assert broadcast(Shape(("N",), (), False), Shape(("N",))) is None
