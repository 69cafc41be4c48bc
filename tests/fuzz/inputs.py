"""Generated hostile inputs for every reader mlsleuth has, and a harness that feeds them.

Each generator takes a ``random.Random`` and returns the bytes of one input (or a
small tree of them); :func:`run_input` feeds one input to the library the way the
CLI and the MCP server do, and classifies the outcome:

* ``ok``: a report, or the documented clear error for bad input (``ConfigError``
  for settings, ``SweepInputError`` for sweep files);
* ``crash``: any other exception, an ``internal-error`` entry in a scan report
  (the engine contained it, but it is still a bug), or a broken confinement
  invariant (a hostile setting made a scan write outside the project);
* ``hang``: the input ran past its time budget.

Used by ``tests/fuzz/test_fuzz_slice.py`` (a small, fixed slice in the default
suite) and ``benchmarks/bench_fuzz.py`` (the long run that reports the counts).
Everything is derived from the seed, so a failure is reproduced by its seed.
"""

from __future__ import annotations

import json
import os
import random
import signal
import struct
import tempfile
import time
import traceback
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

TRIGGERS = [
    "softmax", "log_softmax", "cross_entropy", "CrossEntropyLoss", "NLLLoss", "backward", "zero_grad", "step",
    "optimizer", "model.eval()", "model.train()", "no_grad", "torch.log", "nan", "math.nan", "float('nan')",
    "DataLoader", "shuffle", "scheduler", "clip_grad_norm_", "retain_graph", "detach", "item()", "manual_seed",
    "load_state_dict", "strict=False", "dropout", "BatchNorm1d", "GradScaler", "masked_fill", "std", "exp",
]

TRAINING_SNIPPET = '''import math
import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.utils.data import DataLoader


class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(10, 3)
        self.drop = nn.Dropout(0.1)

    def forward(self, x):
        return F.softmax(self.fc(self.drop(x)), dim=-1)


def train(model, data, epochs=3):
    opt = torch.optim.Adam(model.parameters(), lr=1e-3, weight_decay=0.01)
    sched = torch.optim.lr_scheduler.StepLR(opt, 1)
    loader = DataLoader(data, batch_size=32)
    total = 0.0
    for epoch in range(epochs):
        for x, y in loader:
            out = model(x)
            loss = F.cross_entropy(out, y)
            if loss == math.nan:
                continue
            loss.backward()
            opt.step()
            sched.step()
            total += loss
    with torch.no_grad():
        acc = (model(x).argmax(1) == y).float().mean()
    return total / len(loader), torch.log(out), acc
'''


# -- Python source -----------------------------------------------------------------------------
def _identifier(rng: random.Random) -> str:
    pool = ["x", "y", "loss", "model", "opt", "out", "logits", "probs", "batch", "é", "变量", "_", "self", "F", "torch", "nn"]
    return rng.choice(pool) + (str(rng.randrange(100)) if rng.random() < 0.3 else "")


def _expr(rng: random.Random, depth: int) -> str:
    if depth <= 0 or rng.random() < 0.25:
        return rng.choice([_identifier(rng), str(rng.randrange(-5, 10**6)), repr(rng.random()), "None", "'s'", "...", "float('nan')"])
    k = rng.randrange(9)
    a, b = _expr(rng, depth - 1), _expr(rng, depth - 1)
    return [
        f"{a} + {b}", f"{a}({b})", f"{a}.{rng.choice(TRIGGERS).split('(')[0].split('.')[-1] or 'x'}({b})", f"[{a}, {b}]",
        f"({a}) == {b}", f"{a}[{b}]", f"lambda q: {a}", f"{{{a}: {b}}}", f"F.{rng.choice(['softmax', 'log_softmax', 'cross_entropy', 'nll_loss'])}({a}, {b})",
    ][k]


def gen_python_soup(rng: random.Random) -> bytes:
    """Random statements built from training-code words: plausible shapes, nonsense meaning."""
    lines = ["import torch", "import torch.nn.functional as F", "import math"]
    indent = 0
    for _ in range(rng.randrange(1, 60)):
        pad = "    " * indent
        k = rng.randrange(10)
        if k == 0 and indent < 6:
            lines.append(f"{pad}for {_identifier(rng)} in {_expr(rng, 2)}:")
            indent += 1
            lines.append("    " * indent + "pass")
        elif k == 1 and indent < 6:
            lines.append(f"{pad}def f{rng.randrange(50)}(self, x, y=None):")
            indent += 1
            lines.append("    " * indent + "pass")
        elif k == 2 and indent < 6:
            lines.append(f"{pad}class C{rng.randrange(9)}(torch.nn.Module):")
            indent += 1
            lines.append("    " * indent + "pass")
        elif k == 3 and indent > 0:
            indent -= 1
        elif k == 4:
            lines.append(f"{pad}with torch.no_grad():")
            lines.append(f"{pad}    {_expr(rng, 3)}")
        else:
            lines.append(f"{pad}{_identifier(rng)} = {_expr(rng, rng.randrange(1, 5))}")
    return "\n".join(lines).encode("utf-8") + b"\n"


def gen_python_deep(rng: random.Random) -> bytes:
    """Nesting far past what the parser or a recursive walk can take, or just under it."""
    n = rng.choice([50, 90, 99, 100, 180, 200, 400, 1000, 3000, 10_000, 100_000])
    k = rng.randrange(8)
    if k == 0:
        return (b"x = " + b"(" * n + b"1" + b")" * n + b"\n")
    if k == 1:
        return (b"x = " + b"[" * n + b"]" * n + b"\n")
    if k == 2:
        return ("x = " + "-" * n + "1\n").encode()
    if k == 3:
        return ("y = " + " + ".join(["softmax(x)"] * n) + "\n").encode()
    if k == 4:
        depth = min(n, 120)
        return "".join("    " * i + f"if loss{i}:\n" for i in range(depth)).encode() + b"    " * depth + b"loss.backward()\n"
    if k == 5:
        depth = min(n, 120)
        return "".join("    " * i + f"def f{i}(x):\n" for i in range(depth)).encode() + b"    " * depth + b"return torch.log(torch.softmax(x, 1))\n"
    if k == 6:
        return ("x = " + "f(" * min(n, 5000) + "1" + ")" * min(n, 5000) + "\n").encode()
    return ("x = model" + ".a" * n + "\nloss = F.cross_entropy(x, y)\n").encode()


def gen_python_huge(rng: random.Random) -> bytes:
    """Huge literals and very long lines."""
    k = rng.randrange(6)
    size = rng.choice([5_000, 50_000, 200_000])
    if k == 0:
        return b"s = '" + b"a" * size + b"'\nloss = F.cross_entropy(F.softmax(x, 1), y)\n"
    if k == 1:
        return b"n = " + b"9" * min(size, 4200) + b"\n"  # past int-string limits
    if k == 2:
        return ("x = [" + ", ".join(str(i) for i in range(size // 8)) + "]\nprobs = torch.softmax(x, 0)\n").encode()
    if k == 3:
        return ("y = torch.log(torch.softmax(x, dim=1)); " * (size // 40)).encode() + b"\n"
    if k == 4:
        return ("\n" * size + "loss = F.nll_loss(F.softmax(x, 1), y)\n").encode()
    return ('d = {"' + '": 1, "'.join(f"k{i}" for i in range(size // 10)) + '": 2}\n').encode()


def gen_python_encoding(rng: random.Random) -> bytes:
    """Odd encodings and bytes: coding declarations, BOMs, UTF-16, invalid UTF-8, NULs, odd line breaks."""
    text = TRAINING_SNIPPET
    k = rng.randrange(12)
    if k == 0:
        return b"# -*- coding: latin-1 -*-\n" + text.replace("x, y", "x, \xe9").encode("latin-1", "replace")
    if k == 1:
        return b"\xef\xbb\xbf" + text.encode()
    if k == 2:
        return text.encode("utf-16")
    if k == 3:
        return text.encode("utf-16-le")
    if k == 4:
        data = bytearray(text.encode())
        for _ in range(rng.randrange(1, 5)):
            data[rng.randrange(len(data))] = rng.choice([0x80, 0xFF, 0xC3, 0xE2])
        return bytes(data)
    if k == 5:
        return text.encode()[: rng.randrange(len(text))] + b"\0" + text.encode()
    if k == 6:
        return text.replace("\n", "\r").encode()
    if k == 7:
        return text.replace("\n", "\r\n").encode()
    if k == 8:
        return text.replace("\n\n", "\n\x0c\n").replace("    ", "\t").encode()
    if k == 9:
        return b"# coding: nonsense-codec\n" + text.encode()
    if k == 10:
        return b"# coding: utf-8\n# coding: latin-1\n" + text.encode() + "\u2028\u00a0z = 1\n".encode()
    return ("# coding: " + rng.choice(["utf-32", "utf-16", "cp1252", "shift_jis", "rot13"]) + "\n").encode() + text.encode()


def gen_python_mutant(rng: random.Random) -> bytes:
    """Realistic training code with bytes flipped, lines dropped, duplicated or shuffled, or cut short."""
    lines = TRAINING_SNIPPET.splitlines()
    for _ in range(rng.randrange(1, 8)):
        k = rng.randrange(5)
        i = rng.randrange(len(lines))
        if k == 0:
            del lines[i]
        elif k == 1:
            lines.insert(i, lines[rng.randrange(len(lines))])
        elif k == 2:
            lines[i] = " " * rng.randrange(9) + lines[i].lstrip()
        elif k == 3 and lines[i]:
            j = rng.randrange(len(lines[i]))
            lines[i] = lines[i][:j] + rng.choice("()[]{}:=.,'\"#\\@ \t") + lines[i][j + 1 :]
        else:
            lines[i] = lines[i] + "  # mlsleuth: ignore[" + rng.choice(["", "x", "all", "softmax-into-logit-loss", "[[", "]"]) + "]"
    text = "\n".join(lines)
    if rng.random() < 0.2:
        text = text[: rng.randrange(len(text))]
    return text.encode()


# -- notebooks ---------------------------------------------------------------------------------
def _cell(rng: random.Random) -> object:
    k = rng.randrange(14)
    source = rng.choice([TRAINING_SNIPPET, "%matplotlib inline\n!pip install x\nprobs = F.softmax(x)\n", "%%bash\necho hi\n", "def f(:\n", ""])
    if k == 0:
        return None
    if k == 1:
        return rng.randrange(10)
    if k == 2:
        return "code"
    if k == 3:
        return {"cell_type": "code", "source": rng.choice([5, None, 3.5, {"a": 1}, [1, 2], ["a", None]])}
    if k == 4:
        return {"source": source}
    if k == 5:
        return {"cell_type": rng.choice([None, 7, "markdown", "raw", "CODE", ""]), "source": source}
    if k == 6:
        return {"cell_type": "code", "input": source.splitlines(True)}
    if k == 7:
        return {"cell_type": "code", "source": source, "outputs": [{"output_type": "stream", "text": "x" * rng.randrange(10_000)}]}
    return {"cell_type": "code", "metadata": {}, "source": source.splitlines(True) if rng.random() < 0.5 else source}


def gen_notebook(rng: random.Random) -> bytes:
    k = rng.randrange(12)
    if k == 0:
        n = rng.choice([100, 1000, 50_000, 200_000])
        return ('{"cells": ' + "[" * n + "]" * n + "}").encode()
    if k == 1:
        return json.dumps(rng.choice([[], None, 5, "x", [1, 2], {"cells": None}, {"cells": {}}, {"worksheets": [None, {"cells": 3}]}])).encode()
    if k == 2:
        return json.dumps({"cells": [_cell(rng) for _ in range(4)]})[: rng.randrange(1, 200)].encode()
    doc = {"nbformat": rng.choice([4, 3, "4", None]), "metadata": {}, "cells": [_cell(rng) for _ in range(rng.randrange(0, 12))]}
    if k == 3:
        doc = {"worksheets": [{"cells": doc["cells"]}], "nbformat": 3}
    text = json.dumps(doc)
    if k == 4:
        return text.encode("utf-16")
    if k == 5:
        return text.encode("utf-16-be")
    if k == 6:
        return text.encode("utf-32")
    if k == 7:
        return b"\xef\xbb\xbf" + text.encode()
    return text.encode()


# -- sweep results -----------------------------------------------------------------------------
def gen_sweep_csv(rng: random.Random) -> bytes:
    """A results table: often well formed (so the statistics run on odd numbers), sometimes broken."""
    hostile = 0.0 if rng.random() < 0.5 else rng.random()  # how often a cell is damaged
    k = rng.randrange(10) if hostile else 9
    values = rng.choice([["0.1", "0.01"], ["a", "b", "c"], ["1e-3", "3e-4", "0.001"], ["1", "2", "3", "4", "5", "6", "7", "8", "9"], ["x", "y"]])
    seeds = rng.choice([2, 3, 6, 12, 50, 300])
    header = "lr,seed,acc" if k != 0 else rng.choice(["", "lr;seed;acc", "lr\tseed\tacc", "lr,lr,seed,acc", "LR,Seed,ACC", "\ufefflr,seed,acc", "lr,seed"])
    rows = [header]
    shape = rng.choice(["normal", "tied", "huge", "tiny", "constant"])
    for s in range(seeds):
        base = rng.gauss(0.8, 0.05)
        for i, v in enumerate(values):
            metric = {"normal": base + 0.01 * i + rng.gauss(0, 0.01), "tied": round(base, 1), "huge": base * 1e300, "tiny": base * 1e-300, "constant": 0.5}[shape]
            cell, seed = repr(metric), str(s)
            if rng.random() < hostile * 0.3:
                cell = rng.choice(["nan", "inf", "-inf", "", "NaN", "1e400", "x", "1" * 40, "-0.0"])
            if rng.random() < hostile * 0.1:
                seed = rng.choice([f"{s}.0", f"seed{s}", "", "-1", str(2**70)])
            rows.append(",".join([v, seed, cell] + (['"unterminated'] if rng.random() < hostile * 0.02 else [])))
    text = "\n".join(rows)
    if k == 1:
        text = text.replace(",", rng.choice([";", "\t", "|", ", "]))
    if k == 2:
        text = text + "\n" + "," * rng.randrange(100)
    if k == 3:
        return text.encode("utf-16")
    if k == 4:
        return text.encode()[: rng.randrange(1, max(2, len(text)))]
    return text.encode()


def gen_sweep_json(rng: random.Random) -> tuple[str, bytes]:
    k = rng.randrange(10)
    if k == 0:
        n = rng.choice([100, 990, 5000, 100_000])
        return "deep.json", ("[" * n + "]" * n).encode()
    if k == 1:
        n = rng.choice([100, 900, 5000])
        return "deep.jsonl", ('{"lr": 1, "seed": 1, "acc": ' + "[" * n + "]" * n + "}\n").encode()
    if k == 2:
        nested: object = 1
        for _ in range(rng.choice([10, 300, 900])):
            nested = {"a": nested}
        return "nested.json", json.dumps([{"lr": 1, "seed": 1, "acc": 0.5, "config": nested}]).encode()
    hostile = 0.0 if rng.random() < 0.5 else rng.random()
    records = []
    for s in range(rng.choice([1, 3, 8, 40])):
        values = [0.1, 0.01] if not hostile else rng.choice([[0.1, 0.01], ["x", "y"], [None, 1], [[1], {"a": 1}]])
        for v in values:
            seed = rng.choice([s, str(s), None, [s], True]) if rng.random() < hostile * 0.3 else s
            acc = rng.choice([None, "nan", [1, 2], {"v": 1}, True, 1e308 * 10]) if rng.random() < hostile * 0.3 else rng.gauss(0.8, 0.05)
            records.append({"lr": v, "seed": seed, "acc": acc, "config": {"opt": {"name": "adam", "betas": [0.9, 0.99]}}})
    if k == 3:
        return "runs.jsonl", "\n".join(json.dumps(r) for r in records).encode() + b"\n{broken\n"
    if k == 4:
        return "runs.json", json.dumps({"runs": records, "extra": [None] * 3}).encode()
    if k == 5:
        return "runs.json", json.dumps(rng.choice([{}, [], [1, 2], "x", {"runs": "no"}, [[1]]])).encode()
    return "runs.jsonl", "\n".join(json.dumps(r) for r in records).encode()


# -- TensorBoard event files -----------------------------------------------------------------------
def _masked_crc(data: bytes) -> int:
    from mlsleuth.sweep.tensorboard import masked_crc32c

    return masked_crc32c(data)


def _frame(payload: bytes, rng: random.Random, damage: bool) -> bytes:
    header = struct.pack("<Q", len(payload))
    length_crc = _masked_crc(header)
    data_crc = _masked_crc(payload)
    if damage:
        which = rng.randrange(3)
        if which == 0:
            length_crc ^= 1
        elif which == 1:
            data_crc ^= 1
        else:
            header = struct.pack("<Q", len(payload) + rng.randrange(1, 1 << 40))
            length_crc = _masked_crc(header)
    return header + struct.pack("<I", length_crc) + payload + struct.pack("<I", data_crc)


def _varint(n: int) -> bytes:
    out = bytearray()
    n &= (1 << 64) - 1
    while True:
        b = n & 0x7F
        n >>= 7
        out.append(b | (0x80 if n else 0))
        if not n:
            return bytes(out)


def _field(number: int, wire: int, value: bytes | int) -> bytes:
    key = _varint(number << 3 | wire)
    if wire == 0:
        return key + _varint(int(value))
    if wire == 2:
        return key + _varint(len(value)) + value
    return key + bytes(value)


def _event(rng: random.Random, step: int) -> bytes:
    tag = rng.choice([b"val/acc", b"train/loss", b"", "é".encode(), b"\xff\xfe"])
    value = _field(1, 2, tag)
    k = rng.randrange(6)
    if k == 0:
        value += _field(2, 5, struct.pack("<f", rng.choice([0.5, float("nan"), float("inf"), -1e38])))
    elif k == 1:
        value += _field(8, 2, bytes(rng.randrange(256) for _ in range(rng.randrange(0, 40))))
    elif k == 2:
        value += bytes(rng.randrange(256) for _ in range(rng.randrange(1, 30)))
    else:
        value += _field(2, 5, struct.pack("<f", rng.random()))
    summary = _field(1, 2, value)
    return _field(2, 0, step if rng.random() < 0.9 else -step) + _field(5, 2, summary)


def _scalar_event(step: int, value: float) -> bytes:
    return _field(2, 0, step) + _field(5, 2, _field(1, 2, _field(1, 2, b"val/acc") + _field(2, 5, struct.pack("<f", value))))


def gen_event_file(rng: random.Random) -> bytes:
    k = rng.randrange(6)
    if k == 0:
        return bytes(rng.randrange(256) for _ in range(rng.randrange(0, 600)))
    records = [_frame(_event(rng, s), rng, damage=(k == 1 and rng.random() < 0.3)) for s in range(rng.randrange(1, 30))]
    blob = b"".join(records)
    if k == 2:
        return blob[: rng.randrange(len(blob) + 1)]
    if k == 3:
        data = bytearray(blob)
        for _ in range(rng.randrange(1, 4)):
            data[rng.randrange(len(data))] ^= 1 << rng.randrange(8)
        return bytes(data)
    if k == 4:
        return _frame(bytes(rng.randrange(256) for _ in range(rng.randrange(0, 200))), rng, damage=False) * rng.randrange(1, 5)
    return blob


# -- hostile [tool.mlsleuth] settings --------------------------------------------------------------
def gen_pyproject(rng: random.Random) -> bytes:
    k = rng.randrange(14)
    if k == 0:
        return b"[tool.mlsleuth\nselect = "
    if k == 1:
        n = rng.choice([100, 1000, 10_000])
        return ("[tool.mlsleuth]\nselect = " + "[" * n + "]" * n + "\n").encode()
    pick = rng.choice
    settings = {
        2: 'cache-dir = "../victim"',
        3: 'cache-dir = "' + pick(["/tmp", "/", "~", "~/.ssh", "../../..", "a/../../b", "/dev/null", "x" * 5000]) + '"',
        4: "max-file-size = " + pick(["nan", "inf", "-inf", "0", "-1", "1e400", "1e300", "1e-300", "true", '"big"', "[1]", "0.000001"]),
        5: "exclude = [" + pick(['"*.py"', '"**"', '"["', '"\\\\"', '"/"', "1", '"' + "*" * 5000 + '"']) + "]",
        6: "select = " + pick(["[1, 2]", '"all"', '["nope"]', "[]", "{a = 1}", '["' + "x" * 10000 + '"]']),
        7: "min-severity = " + pick(['"fatal"', "1", '"error"', "[]"]),
        8: "unknown-key = " + pick(["1", '"x"']),
        9: "ignore = [" + ", ".join(['"loss"'] * rng.randrange(0, 2000)) + "]",
        10: 'extend-exclude = ["../*", "/etc/*"]',
        11: "cache-dir = " + pick(["1", "true", '["a"]']),
    }
    body = settings.get(k, 'cache-dir = "cache\\u0000x"')
    return f"[project]\nname = 'x'\n\n[tool.mlsleuth]\n{body}\n".encode()


# -- the harness -------------------------------------------------------------------------------------
@dataclass
class Outcome:
    kind: str
    seed: int
    status: str  # ok / crash / hang
    seconds: float
    detail: str = ""
    handled: str = ""  # for ok: "report" (analysed) or "refused" (the documented clear error)


class _Timeout(Exception):
    pass


def _alarm(_signum, _frame):
    raise _Timeout()


KINDS: dict[str, Callable[[random.Random], object]] = {
    "python-soup": gen_python_soup,
    "python-deep": gen_python_deep,
    "python-huge": gen_python_huge,
    "python-encoding": gen_python_encoding,
    "python-mutant": gen_python_mutant,
    "notebook": gen_notebook,
    "sweep-csv": gen_sweep_csv,
    "sweep-json": gen_sweep_json,
    "event-file": gen_event_file,
    "pyproject": gen_pyproject,
}


def _snapshot(folder: Path) -> set[str]:
    out = set()
    for dirpath, _dirs, files in os.walk(folder):
        for name in files:
            out.add(os.path.join(dirpath, name))
    return out


def _feed(kind: str, rng: random.Random, work: Path) -> tuple[str, str]:
    """Feed one input; return (what went wrong or "", "report" or "refused")."""
    from mlsleuth.config import Config, ConfigError, Selection, load_config
    from mlsleuth.scan.engine import scan_paths
    from mlsleuth.sweep.compare import compare_sweep
    from mlsleuth.sweep.ingest import SweepInputError
    from mlsleuth.sweep.tensorboard import read_tensorboard_dir

    root = work / "project"
    root.mkdir()
    data = KINDS[kind](rng)
    if kind.startswith("python") or kind == "notebook":
        name = "nb.ipynb" if kind == "notebook" else "train.py"
        (root / name).write_bytes(data)  # type: ignore[arg-type]
        # mostly the file by name (no ripgrep subprocess: ten times faster), sometimes the folder
        target = root if rng.random() < 0.1 else root / name
        report = scan_paths([target], root=root, config=Config(), use_cache=rng.random() < 0.2, jobs=1)
        bad = [e for e in report.errors if e.kind == "internal-error"]
        return (f"internal-error: {bad[0].message}" if bad else ""), ("refused" if report.errors else "report")
    if kind in ("sweep-csv", "sweep-json"):
        name, blob = ("results.csv", data) if kind == "sweep-csv" else data  # type: ignore[misc]
        (root / name).write_bytes(blob)
        try:
            compare_sweep(root / name, param="lr", metric="acc", seed="seed", test=rng.choice(["t", "signflip"]))
        except SweepInputError:
            return "", "refused"
        return "", "report"
    if kind == "event-file":
        for lr in ("0.1", "0.01"):  # an intact sweep around the one generated file
            for seed in range(3):
                run = root / "logs" / f"lr={lr}" / f"seed={seed}"
                run.mkdir(parents=True)
                intact = b"".join(_frame(_scalar_event(step, 0.5 + 0.01 * seed + (0.05 if lr == "0.01" else 0) + 0.001 * step), rng, False) for step in range(5))
                (run / "events.out.tfevents.0.host").write_bytes(intact)
        if rng.random() < 0.7:
            run = root / "logs" / f"lr={rng.choice(['0.1', '0.01', '1.0'])}" / f"seed={rng.randrange(4)}"
            run.mkdir(parents=True, exist_ok=True)
            (run / "events.out.tfevents.1.host").write_bytes(data)  # type: ignore[arg-type]
        for use_package in (False, True):
            try:
                read_tensorboard_dir(root / "logs", use_package=use_package, confine_to=root)
            except SweepInputError:
                pass
        try:
            compare_sweep(root / "logs", param="lr", metric="val/acc", seed="seed")
        except SweepInputError:
            return "", "refused"
        return "", "report"
    if kind == "pyproject":
        (root / "pyproject.toml").write_bytes(data)  # type: ignore[arg-type]
        (root / "train.py").write_text(TRAINING_SNIPPET)
        before = _snapshot(work)
        try:
            config = load_config(root, boundary=root)
            scan_paths([root], root=root, config=config, use_cache=True, jobs=1, confine_to=root, selection=Selection())
        except ConfigError:
            return "", "refused"
        created = {p for p in _snapshot(work) - before if not p.startswith(str(root) + os.sep)}
        return (f"wrote outside the project: {sorted(created)[:3]}" if created else ""), "report"
    raise ValueError(kind)


def run_input(kind: str, seed: int, budget_s: float = 10.0) -> Outcome:
    """Generate input ``seed`` of ``kind`` and feed it; never raises."""
    rng = random.Random(f"{kind}:{seed}")
    started = time.perf_counter()
    handled = ""
    previous = signal.signal(signal.SIGALRM, _alarm)
    signal.setitimer(signal.ITIMER_REAL, budget_s)
    try:
        with tempfile.TemporaryDirectory(prefix="mlsleuth-fuzz-") as tmp:
            problem, handled = _feed(kind, rng, Path(tmp))
        status, detail = ("crash", problem) if problem else ("ok", "")
    except _Timeout:
        status, detail = "hang", f"ran past {budget_s:g} s"
    except BaseException as exc:  # every escape is what the fuzzer looks for
        if isinstance(exc, KeyboardInterrupt):
            raise
        status, detail = "crash", "".join(traceback.format_exception(exc))[-2000:]
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, previous)
    return Outcome(kind, seed, status, time.perf_counter() - started, detail, handled if status == "ok" else "")
