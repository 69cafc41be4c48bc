"""Reading sweep results: every supported format, layout and the clear errors for bad input."""

from __future__ import annotations

import gzip
import json
import math
from pathlib import Path

import numpy as np
import pytest
from mlsleuth.sweep.ingest import SweepInputError, load_runs
from mlsleuth.sweep.tensorboard import extract_from_path, masked_crc32c

DATA = Path(__file__).parent / "data"


def _by_key(runs):
    return {(r_v, r_s): (m, st) for r_v, r_s, m, st in zip(runs.values, runs.seeds, runs.metric_values, runs.status)}


def write(tmp_path, name, text):
    p = tmp_path / name
    p.write_text(text, encoding="utf-8")
    return p


def test_long_csv_numeric_values_and_seed_normalisation(tmp_path):
    p = write(tmp_path, "r.csv", "lr,seed,acc\n1e-3,1,0.5\n0.001,2.0,0.6\n0.01,1,0.7\n1e-2,2,0.8\n")
    runs = load_runs(p, param="lr", metric="acc", seed="seed")
    assert runs.numeric and runs.value_keys == [0.001, 0.01]
    assert sorted(set(runs.seeds)) == ["1", "2"]  # "2.0" and "2" are the same seed
    assert _by_key(runs)[(0.001, "2")] == (0.6, "ok")
    assert runs.value_labels[0.001] == "1e-3"  # first spelling seen is kept for display


def test_tsv_semicolon_and_gzip(tmp_path):
    p = write(tmp_path, "r.tsv", "lr\tseed\tacc\n0.1\t0\t1\n0.2\t0\t2\n")
    assert load_runs(p, param="lr", metric="acc", seed="seed").metric_values.tolist() == [1.0, 2.0]
    p = write(tmp_path, "r2.csv", "lr;seed;acc\n0.1;0;1\n0.2;0;2\n")
    assert load_runs(p, param="lr", metric="acc", seed="seed").metric_values.tolist() == [1.0, 2.0]
    gz = tmp_path / "r3.csv.gz"
    with gzip.open(gz, "wt") as fh:
        fh.write("lr,seed,acc\n0.1,0,1\n0.2,0,2\n")
    assert load_runs(gz, param="lr", metric="acc", seed="seed").metric_values.tolist() == [1.0, 2.0]


def test_jsonl_nested_config_is_flattened(tmp_path):
    lines = [json.dumps({"config": {"lr": lr, "seed": s}, "summary": {"val": {"acc": 0.1 * s + lr}}}) for lr in (1, 2) for s in (0, 1)]
    p = write(tmp_path, "r.jsonl", "\n".join(lines) + "\n\n")
    runs = load_runs(p, param="lr", metric="val.acc", seed="seed")
    assert runs.param == "config.lr" and runs.seed == "config.seed" and runs.metric == "summary.val.acc"
    assert _by_key(runs)[(2.0, "1")][0] == pytest.approx(2.1)


def test_json_list_and_records(tmp_path):
    recs = [{"opt": o, "seed": s, "loss": 1.0 + s} for o in ("adam", "sgd") for s in (0, 1)]
    p = write(tmp_path, "r.json", json.dumps({"runs": recs}))
    runs = load_runs(p, param="opt", metric="loss", seed="seed")
    assert not runs.numeric and runs.value_keys == ["adam", "sgd"]
    assert load_runs(recs, param="opt", metric="loss", seed="seed").value_keys == ["adam", "sgd"]


def test_wandb_api_export_with_encoded_dict_columns():
    runs = load_runs(DATA / "wandb_api_export.csv", param="lr", metric="val/acc", seed="seed")
    assert runs.param == "config.lr" and runs.metric == "summary.val/acc"
    assert runs.value_keys == [0.001, 0.01] and len(runs.seeds) == 8
    assert _by_key(runs)[(0.01, "3")] == (0.722, "ok")
    assert "calm-moon-2" in runs.labels  # run names are used in messages


def test_wandb_ui_export_states_and_missing_metric():
    runs = load_runs(DATA / "wandb_ui_export.csv", param="lr", metric="val/acc", seed="seed")
    got = _by_key(runs)
    assert got[(0.03, "1")][1] == "failed"  # State=crashed
    assert got[(0.03, "2")][1] == "incomplete"  # State=running
    assert got[(0.03, "0")][1] == "missing"  # finished but no metric recorded
    assert got[(0.003, "0")] == (0.823, "ok")


def test_mlflow_export_params_are_strings_converted_to_numbers():
    runs = load_runs(DATA / "mlflow_runs.csv", param="lr", metric="val_loss", seed="seed", lower_is_better=True)
    assert runs.param == "params.lr" and runs.metric == "metrics.val_loss"
    assert runs.numeric and runs.value_keys == [0.001, 0.01, 0.1]
    got = _by_key(runs)
    assert got[(0.1, "0")][1] == "failed"
    assert "run-a1" in runs.labels


def test_optuna_trials_dataframe():
    runs = load_runs(DATA / "optuna_trials.csv", param="dropout", metric="value", seed="seed")
    assert runs.param == "params_dropout" and runs.seed == "user_attrs_seed"
    got = _by_key(runs)
    assert got[(0.3, "2")][1] == "incomplete"  # PRUNED
    assert got[(0.5, "0")][1] == "failed"  # FAIL
    assert got[(0.1, "1")] == (0.8655, "ok")


def test_wide_layout_by_seed_with_prefixed_headers(tmp_path):
    p = write(tmp_path, "w.csv", "seed,lr=0.001,lr=0.01\n0,0.5,0.6\n1,0.4,0.45\n")
    runs = load_runs(p, param="lr", metric="acc", seed="seed")
    assert _by_key(runs) == {(0.001, "0"): (0.5, "ok"), (0.001, "1"): (0.4, "ok"), (0.01, "0"): (0.6, "ok"), (0.01, "1"): (0.45, "ok")}
    assert "read as a wide table" in runs.notes


def test_wide_layout_by_value_with_numeric_seed_headers(tmp_path):
    p = write(tmp_path, "w.csv", "lr,0,1,2\n0.1,0.5,0.4,0.3\n0.2,0.6,0.5,0.4\n")
    runs = load_runs(p, param="lr", metric="acc", seed="seed")
    assert _by_key(runs)[(0.2, "2")] == (0.4, "ok")


def test_wide_layout_with_text_headers_needs_explicit_flag(tmp_path):
    p = write(tmp_path, "w.csv", "seed,adam,sgd\n0,0.5,0.6\n1,0.4,0.45\n")
    with pytest.raises(SweepInputError, match="--layout wide"):
        load_runs(p, param="optimizer", metric="acc", seed="seed")
    runs = load_runs(p, param="optimizer", metric="acc", seed="seed", layout="wide")
    assert runs.value_keys == ["adam", "sgd"]


def test_curves_reduced_per_run_and_divergence(tmp_path):
    rows = ["lr,seed,step,loss"]
    for lr in (0.1, 0.2):
        for seed in (0, 1):
            for step in (2, 0, 1):  # out of order on purpose: --step orders them
                v = 1.0 / (step + 1) + lr + seed
                if lr == 0.2 and seed == 1 and step == 2:
                    v = float("nan")
                rows.append(f"{lr},{seed},{step},{v}")
    p = write(tmp_path, "c.csv", "\n".join(rows) + "\n")
    with pytest.raises(SweepInputError, match="more than one row"):
        load_runs(p, param="lr", metric="loss", seed="seed")
    last = _by_key(load_runs(p, param="lr", metric="loss", seed="seed", step="step", reduce="last"))
    assert last[(0.1, "0")][0] == pytest.approx(1 / 3 + 0.1)
    assert last[(0.2, "1")][1] == "diverged" and math.isnan(last[(0.2, "1")][0])
    best = _by_key(load_runs(p, param="lr", metric="loss", seed="seed", step="step", reduce="best", lower_is_better=True))
    assert best[(0.1, "1")][0] == pytest.approx(1 / 3 + 1.1)
    mean2 = _by_key(load_runs(p, param="lr", metric="loss", seed="seed", step="step", reduce="mean-last-2"))
    assert mean2[(0.1, "0")][0] == pytest.approx((0.5 + 1 / 3) / 2 + 0.1)


def test_recovered_spike_is_not_a_divergence_with_last(tmp_path):
    # A NaN in the middle of a curve that ends finite: the run did not end diverged.
    p = write(tmp_path, "c.csv", "lr,seed,step,loss\n0.1,0,0,1\n0.1,0,1,nan\n0.1,0,2,0.5\n0.2,0,0,1\n0.2,0,1,0.9\n0.2,0,2,0.8\n")
    got = _by_key(load_runs(p, param="lr", metric="loss", seed="seed", step="step", reduce="last"))
    assert got[(0.1, "0")] == (0.5, "ok")


def test_tensorboard_directory_real_event_files():
    runs = load_runs(DATA / "tb", param="lr", metric="val/acc", seed="seed")
    got = _by_key(runs)
    assert got[(0.001, "0")][0] == pytest.approx(0.7, abs=1e-6)  # SummaryWriter simple_value, last step
    assert got[(0.01, "2")][0] == pytest.approx(0.85, abs=1e-6)
    assert got[(0.1, "0")][1] == "diverged"
    assert got[(0.1, "1")][0] == pytest.approx(0.59, abs=1e-6)  # TF2 tensor summary, float_val
    assert got[(0.1, "2")][0] == pytest.approx(0.59, abs=1e-6)  # TF2 tensor summary, tensor_content
    best = _by_key(load_runs(DATA / "tb", param="lr", metric="train/loss", seed="seed", reduce="min"))
    assert best[(0.001, "1")][0] == pytest.approx(0.2)


def test_tensorboard_errors(tmp_path):
    (tmp_path / "empty").mkdir()
    with pytest.raises(SweepInputError, match="no TensorBoard event files"):
        load_runs(tmp_path / "empty", param="lr", metric="acc", seed="seed")
    with pytest.raises(SweepInputError, match="cannot read 'momentum'"):
        load_runs(DATA / "tb", param="momentum", metric="val/acc", seed="seed")
    with pytest.raises(SweepInputError, match="Did you mean 'val/acc'"):
        load_runs(DATA / "tb", param="lr", metric="val/accuracy", seed="seed")
    bad = tmp_path / "bad" / "lr=1" / "seed=0"
    bad.mkdir(parents=True)
    (bad / "events.out.tfevents.1.host").write_bytes(b"\x05" * 40)
    with pytest.raises(SweepInputError, match="corrupt event file"):
        load_runs(tmp_path / "bad", param="lr", metric="acc", seed="seed")


def test_crc32c_known_vector():
    # CRC32C("123456789") = 0xE3069283; masked per the TFRecord format
    crc = 0xE3069283
    assert masked_crc32c(b"123456789") == (((crc >> 15) | (crc << 17)) + 0xA282EAD8) & 0xFFFFFFFF


@pytest.mark.parametrize("path,name,value", [
    ("lr=0.01/seed=3", "lr", "0.01"),
    ("lr=0.01/seed=3", "seed", "3"),
    ("run_lr-1e-3_seed_2", "lr", "1e-3"),
    ("run_lr-1e-3_seed_2", "seed", "2"),
    ("opt=adam,seed=0", "opt", "adam"),
    ("sched_cosine/lr0.1/seed7", "lr", "0.1"),
    ("lr_schedule=cosine/lr=0.5", "lr", "0.5"),
])
def test_values_from_run_paths(path, name, value):
    assert extract_from_path(path, name) == value


def test_missing_column_lists_columns_and_suggests(tmp_path):
    p = write(tmp_path, "r.csv", "learning_rate,seed,val_acc\n0.1,0,1\n0.2,0,2\n")
    with pytest.raises(SweepInputError) as exc:
        load_runs(p, param="learning_rate", metric="acc", seed="seed")
    msg = str(exc.value)
    assert "no column for the metric 'acc'" in msg and "val_acc" in msg and "Columns: learning_rate, seed, val_acc" in msg


def test_ambiguous_column_asks_for_full_name(tmp_path):
    p = write(tmp_path, "r.csv", "params.lr,config.lr,seed,acc\n0.1,0.1,0,1\n0.2,0.2,0,2\n")
    with pytest.raises(SweepInputError, match="matches several columns"):
        load_runs(p, param="lr", metric="acc", seed="seed")
    assert load_runs(p, param="params.lr", metric="acc", seed="seed").param == "params.lr"


def test_single_value_is_an_error(tmp_path):
    p = write(tmp_path, "r.csv", "lr,seed,acc\n0.1,0,1\n0.1,1,2\n")
    with pytest.raises(SweepInputError, match="only one value"):
        load_runs(p, param="lr", metric="acc", seed="seed")


def test_mixed_parameter_types_error_and_categorical_escape(tmp_path):
    p = write(tmp_path, "r.csv", "wd,seed,acc\n0.1,0,1\nnone,0,2\n0.01,0,3\n")
    with pytest.raises(SweepInputError, match="mixes numbers"):
        load_runs(p, param="wd", metric="acc", seed="seed")
    runs = load_runs(p, param="wd", metric="acc", seed="seed", categorical=True)
    assert not runs.numeric and set(runs.value_keys) == {"0.1", "none", "0.01"}


def test_non_numeric_metric_is_an_error_naming_the_line(tmp_path):
    p = write(tmp_path, "r.csv", "lr,seed,acc\n0.1,0,1\n0.2,0,oops\n")
    with pytest.raises(SweepInputError, match=r"'oops' \(line 3\)"):
        load_runs(p, param="lr", metric="acc", seed="seed")


@pytest.mark.parametrize("text,match", [
    ("", "empty"),
    ("lr,seed,acc\n", "no rows"),
    ("lr,seed,acc\n0.1,0,1\n0.2,0\n", "line 3 has 2 fields"),
    ("lr,lr,acc\n0.1,0,1\n", "repeats column"),
    ("lr,seed,acc\n0.1,,1\n0.2,0,1\n", "has no seed"),
    ("lr,seed,acc\n,0,1\n0.2,0,1\n", "no value for the parameter"),
])
def test_malformed_csv(tmp_path, text, match):
    p = write(tmp_path, "r.csv", text)
    with pytest.raises(SweepInputError, match=match):
        load_runs(p, param="lr", metric="acc", seed="seed")


def test_malformed_json_inputs(tmp_path):
    with pytest.raises(SweepInputError, match="line 2 is not valid JSON"):
        load_runs(write(tmp_path, "r.jsonl", '{"a": 1}\n{"a": \n'), param="lr", metric="acc", seed="seed")
    with pytest.raises(SweepInputError, match="not a JSON object"):
        load_runs(write(tmp_path, "r2.jsonl", "[1, 2]\n"), param="lr", metric="acc", seed="seed")
    with pytest.raises(SweepInputError, match="list of objects"):
        load_runs(write(tmp_path, "r.json", '"hello"'), param="lr", metric="acc", seed="seed")
    with pytest.raises(SweepInputError, match="no such file"):
        load_runs(tmp_path / "nope.csv", param="lr", metric="acc", seed="seed")
    with pytest.raises(SweepInputError, match="unknown reduction"):
        load_runs(write(tmp_path, "ok.csv", "lr,seed,acc\n1,0,1\n2,0,2\n"), param="lr", metric="acc", seed="seed", reduce="median")


def test_duplicates_error_suggests_reduce_or_group(tmp_path):
    p = write(tmp_path, "r.csv", "lr,seed,acc,data\n0.1,0,1,a\n0.1,0,2,b\n0.2,0,3,a\n0.2,0,4,b\n")
    with pytest.raises(SweepInputError, match="--group"):
        load_runs(p, param="lr", metric="acc", seed="seed")
    runs = load_runs(p, param="lr", metric="acc", seed="seed", groups=["data"])
    assert set(runs.groups) == {("a",), ("b",)}


def test_log_spacing_detection(tmp_path):
    p = write(tmp_path, "r.csv", "lr,seed,acc\n" + "".join(f"{v},0,1\n" for v in (1e-4, 1e-3, 1e-2, 1e-1)))
    assert load_runs(p, param="lr", metric="acc", seed="seed").log_spaced
    p = write(tmp_path, "r2.csv", "bs,seed,acc\n" + "".join(f"{v},0,1\n" for v in (10, 40, 70, 100, 130)))
    assert not load_runs(p, param="bs", metric="acc", seed="seed").log_spaced


def test_large_file_is_loaded_column_wise(tmp_path):
    # 60k rows of curves: checks the vectorised grouping gives the right last values.
    steps = 1000
    lines = ["lr,seed,step,acc"]
    for lr in (0.1, 0.2, 0.3):
        for seed in range(20):
            lines.extend(f"{lr},{seed},{s},{lr + seed + s / steps}" for s in range(steps))
    p = write(tmp_path, "big.csv", "\n".join(lines) + "\n")
    runs = load_runs(p, param="lr", metric="acc", seed="seed", step="step", reduce="last")
    got = _by_key(runs)
    assert len(got) == 60
    assert got[(0.3, "19")][0] == pytest.approx(0.3 + 19 + (steps - 1) / steps)
    assert np.all(np.array(runs.status) == "ok")


def test_tensorboard_package_and_builtin_decoder_agree_and_say_which_ran():
    pytest.importorskip("tensorboard")
    from mlsleuth.sweep.tensorboard import read_tensorboard_dir

    package = read_tensorboard_dir(DATA / "tb")
    builtin = read_tensorboard_dir(DATA / "tb", use_package=False)
    def same(x, y):
        return x == y or (isinstance(x, float) and isinstance(y, float) and math.isnan(x) and math.isnan(y))

    assert package.n_rows == builtin.n_rows > 0 and package.columns.keys() == builtin.columns.keys()
    for name, cells in package.columns.items():
        assert all(same(x, y) for x, y in zip(cells, builtin.columns[name], strict=True)), name
    assert "tensorboard package" in package.notes[0]
    assert "built-in decoder" in builtin.notes[0] and "mlsleuth[tensorboard]" in builtin.notes[0]
    runs = load_runs(DATA / "tb", param="lr", metric="val/acc", seed="seed")
    assert any("tensorboard package" in n for n in runs.notes)


def test_builtin_decoder_rejects_a_corrupt_file(tmp_path):
    from mlsleuth.sweep.tensorboard import read_tensorboard_dir

    bad = tmp_path / "lr=1" / "seed=0"
    bad.mkdir(parents=True)
    (bad / "events.out.tfevents.1.host").write_bytes(b"\x05" * 40)
    with pytest.raises(SweepInputError, match="corrupt event file"):
        read_tensorboard_dir(tmp_path, use_package=False)
