"""The sweep's text: a trend without significance gives no direction, the last line names the winner (or says
there is none), numbers in one table share their decimals, and `--plot` is pointed to."""

from __future__ import annotations

import math
import re
from pathlib import Path

import pytest
from mlsleuth.cli import main

LRS = (1e-4, 3e-4, 1e-3, 3e-3)


def _noise(seed: int, i: int) -> float:
    return math.sin(12.9898 * seed + 78.233 * i) * 0.01  # deterministic, zero-mean-ish noise


def _write(tmp_path: Path, name: str, gain: float, seeds: int = 6) -> Path:
    lines = ["lr,seed,val_acc"]
    for s in range(seeds):
        base = 0.7 + 0.05 * math.cos(3.1 * s)
        for i, lr in enumerate(LRS):
            lines.append(f"{lr},{s},{base + gain * i + _noise(s, i):.6f}")
    path = tmp_path / name
    path.write_text("\n".join(lines) + "\n")
    return path


def _text(path: Path, capsys, *extra: str) -> str:
    main(["sweep", str(path), "--param", "lr", "--metric", "val_acc", "--seed", "seed", *extra])
    return capsys.readouterr().out


def _trend_line(text: str) -> str:
    return next(line for line in text.splitlines() if line.startswith("trend"))


def test_a_trend_far_from_significant_gets_no_direction(tmp_path, capsys):
    text = _text(_write(tmp_path, "flat.csv", gain=0.0), capsys)
    line = _trend_line(text)
    p = float(re.search(r"two-sided p=([0-9.e-]+)", line).group(1))
    assert p > 0.05
    assert "no clear trend" in line and f"p={p:.4f}" in line.replace("two-sided ", "")
    assert "rises with" not in text and "falls with" not in text


def test_a_clear_trend_keeps_its_direction(tmp_path, capsys):
    line = _trend_line(_text(_write(tmp_path, "rising.csv", gain=0.02), capsys))
    assert "val_acc rises with lr" in line and "no clear trend" not in line


def test_the_last_line_names_the_winner(tmp_path, capsys):
    text = _text(_write(tmp_path, "rising.csv", gain=0.02), capsys)
    last = text.rstrip().splitlines()[-1]
    assert "winner: lr=0.003" in last


def test_the_last_line_says_when_there_is_no_winner(tmp_path, capsys):
    text = _text(_write(tmp_path, "flat.csv", gain=0.0), capsys)
    last = text.rstrip().splitlines()[-1]
    assert "no clear winner" in last and not re.search(r"(?<!clear )winner: lr=", last)


def test_numbers_in_the_table_share_their_decimals(tmp_path, capsys):
    text = _text(_write(tmp_path, "flat.csv", gain=0.0), capsys)
    lines = text.splitlines()
    start = next(i for i, line in enumerate(lines) if line.startswith("lr ") and "mean diff" in line)
    rows = lines[start + 2:start + 5]
    numbers = [n for row in rows for n in re.findall(r"-?\d+\.\d+", re.search(r"(-?\d+\.\d+ \[-?\d+\.\d+, -?\d+\.\d+\])", row).group(1))]
    assert len(numbers) == 9 and len({len(n.split(".")[1]) for n in numbers}) == 1, rows
    means = re.search(r"mean val_acc by value: (.*)", text).group(1)
    assert len({len(m.split(".")[-1]) for m in re.findall(r"=(-?\d+\.\d+)", means)}) == 1, means


def test_plot_is_pointed_to_and_named_when_written(tmp_path, capsys):
    pytest.importorskip("matplotlib")
    path = _write(tmp_path, "rising.csv", gain=0.02)
    assert "--plot" in _text(path, capsys)
    png = tmp_path / "forest.png"
    text = _text(path, capsys, "--plot", str(png))
    assert png.is_file() and str(png) in text
    assert "winner: lr=0.003" in text.rstrip().splitlines()[-1]
