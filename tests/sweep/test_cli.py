"""The `mlsleuth sweep` command line: table output, exit codes, JSON, plots, --plan, and usage errors."""

from __future__ import annotations

import json
import math
from pathlib import Path

import pytest
from mlsleuth.catalog import load_all
from mlsleuth.cli import main

DATA = Path(__file__).parent / "data"


def seed_noise(s):
    return [0.31, -0.52, 0.08, 0.77, -0.19, -0.66, 0.44, 0.02, -0.35, 0.58][s]


@pytest.fixture()
def clear_sweep(tmp_path):
    lines = ["lr,seed,acc"]
    for s in range(10):
        for v, gain in ((0.001, 0.0), (0.01, 0.02)):
            lines.append(f"{v},{s},{0.7 + 0.1 * seed_noise(s) + gain + 0.003 * math.sin(11 * s + 50 * v):.6f}")
    p = tmp_path / "sweep.csv"
    p.write_text("\n".join(lines) + "\n")
    return p


def test_text_table_and_clean_exit(clear_sweep, capsys):
    rc = main(["sweep", str(clear_sweep), "--param", "lr", "--metric", "acc", "--seed", "seed", "--baseline", "0.001"])
    out = capsys.readouterr().out
    assert rc == 0  # only informational findings
    for bit in ("mean diff [95% CI]", "d_z", "HL", "improved", "p exact", "p Holm", "reliably better", "10/10",
                "between-seed correlation", "seeds needed for 80% power", "cannot give p below"):
        assert bit in out, bit


def test_warnings_give_exit_1_and_exit_zero_overrides(capsys):
    args = ["sweep", str(DATA / "wandb_ui_export.csv"), "--param", "lr", "--metric", "val/acc", "--seed", "seed"]
    assert main(args) == 1
    out = capsys.readouterr().out
    assert "sweep-run-failed" in out and "ruby-sweep-6" in out
    assert main(args + ["--exit-zero"]) == 0


def test_json_output_is_the_shared_schema(clear_sweep, capsys, tmp_path):
    out_file = tmp_path / "r.json"
    main(["sweep", str(clear_sweep), "--param", "lr", "--metric", "acc", "--seed", "seed", "--format", "json", "-o", str(out_file)])
    data = json.loads(out_file.read_text())
    assert data["tool"] == "sweep"
    assert data["findings"][0]["rule"] == "sweep-reliably-worse"  # baseline is the best (0.01)
    assert data["summary"]["stats"]["groups"][0]["comparisons"][0]["n_paired"] == 10


def test_sarif_output_has_rule_metadata(clear_sweep, capsys):
    main(["sweep", str(clear_sweep), "--param", "lr", "--metric", "acc", "--seed", "seed", "--format", "sarif"])
    sarif = json.loads(capsys.readouterr().out)
    assert sarif["runs"][0]["tool"]["driver"]["rules"][0]["id"] == "sweep-reliably-worse"


def test_plot_file_written(clear_sweep, tmp_path, capsys):
    pytest.importorskip("matplotlib", reason="plotting needs the optional 'plot' extra (matplotlib)")
    png = tmp_path / "f.png"
    main(["sweep", str(clear_sweep), "--param", "lr", "--metric", "acc", "--seed", "seed", "--plot", str(png)])
    assert png.read_bytes()[:4] == b"\x89PNG"


def test_plot_needs_png_name(clear_sweep, capsys):
    assert main(["sweep", str(clear_sweep), "--param", "lr", "--metric", "acc", "--seed", "seed", "--plot", "f.jpg"]) == 2
    assert "ending in .png" in capsys.readouterr().err


def test_usage_errors_exit_2_with_a_clear_message(clear_sweep, capsys):
    assert main(["sweep", str(clear_sweep), "--param", "lr", "--metric", "accuracy", "--seed", "seed"]) == 2
    err = capsys.readouterr().err
    assert "mlsleuth sweep: error:" in err and "no column for the metric 'accuracy'" in err and "Did you mean 'acc'" in err
    assert main(["sweep", "--param", "lr"]) == 2
    assert "missing RESULTS, --metric, --seed" in capsys.readouterr().err


def test_plan_prints_every_seed_with_every_value(capsys):
    rc = main(["sweep", "--plan", "--param", "lr", "--values", "1e-4,1e-3", "--seeds", "0-2",
               "--command", "python train.py --lr {value} --seed {seed} --name {param}"])
    out = capsys.readouterr().out.splitlines()
    assert rc == 0
    cmds = [line for line in out if not line.startswith("#")]
    assert cmds == [f"python train.py --lr {v} --seed {s} --name lr" for s in range(3) for v in ("1e-4", "1e-3")]
    assert "3 seeds x 2 values of lr = 6 runs" in out[0]


def test_plan_json_and_csv(capsys):
    main(["sweep", "--plan", "--param", "opt", "--values", "adam,sgd", "--seeds", "0,1", "--format", "json"])
    rows = json.loads(capsys.readouterr().out)
    assert rows[0] == {"seed": "0", "value": "adam", "param": "opt"} and len(rows) == 4
    main(["sweep", "--plan", "--param", "opt", "--values", "adam,sgd", "--seeds", "0,1"])
    assert "seed,value\n0,adam\n0,sgd\n1,adam\n1,sgd" in capsys.readouterr().out


def test_plan_quotes_values_for_the_shell(capsys):
    main(["sweep", "--plan", "--param", "name", "--values", "a b,c", "--seeds", "0,1", "--command", "run --x {value} --s {seed}"])
    assert "run --x 'a b' --s 0" in capsys.readouterr().out


@pytest.mark.parametrize("extra,match", [
    (["--values", "1", "--seeds", "0,1", "--command", "x {value} {seed}"], "at least two values"),
    (["--values", "1,2", "--seeds", "0", "--command", "x {value} {seed}"], "at least two seeds"),
    (["--values", "1,2", "--seeds", "0,1", "--command", "x {value}"], "must contain {seed}"),
    (["--values", "1,2", "--seeds", "0,1", "--command", "x {value} {seed} {lr}"], "unknown placeholder"),
    (["--values", "1,1", "--seeds", "0,1"], "repeated entries"),
    (["--values", "1,2", "--seeds", "4-2"], "runs backwards"),
    (["--seeds", "0,1"], "--plan needs --values"),
])
def test_plan_errors(extra, match, capsys):
    assert main(["sweep", "--plan", "--param", "lr", *extra]) == 2
    assert match in capsys.readouterr().err


def test_every_sweep_finding_is_documented():
    docs = {d.id: d for d in load_all().values() if d.tool == "sweep"}
    assert {"sweep-reliably-better", "sweep-reliably-worse", "sweep-no-reliable-difference", "sweep-under-powered",
            "sweep-run-diverged", "sweep-run-failed", "sweep-run-incomplete", "sweep-unpaired-seeds",
            "sweep-monotone-trend", "sweep-interior-optimum", "sweep-zscore-recipe"} == set(docs)
    for d in docs.values():
        assert d.finds and d.why and d.confirm and d.instead


def test_rules_command_lists_sweep_checks(capsys):
    assert main(["rules", "--tool", "sweep"]) == 0
    assert "sweep-under-powered" in capsys.readouterr().out


def test_cli_import_stays_light():
    import subprocess
    import sys

    code = "import sys, mlsleuth.cli, mlsleuth.commands.sweep, mlsleuth.sweep, mlsleuth.sweep.checks; print('numpy' in sys.modules)"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout.strip()
    assert out == "False"
