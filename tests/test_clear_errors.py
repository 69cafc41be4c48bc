"""Inputs that used to end in a traceback get a clear error instead (issue 16, item 16)."""

from __future__ import annotations

import errno
import json
import subprocess
import sys
from pathlib import Path

import pytest
from mlsleuth.config import ConfigError, find_pyproject, load_config
from mlsleuth.scan.engine import scan_paths
from mlsleuth.sweep.compare import compare_sweep
from mlsleuth.sweep.ingest import SweepInputError


def mlsleuth(*args: str, cwd: Path) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "mlsleuth", *args], check=False, cwd=cwd, capture_output=True, text=True, timeout=120)


@pytest.mark.parametrize("value", ["nan", "inf", "-inf", "1e400", "1e300"])
def test_cli_max_file_size_must_be_a_finite_positive_number(tmp_path, value):
    (tmp_path / "a.py").write_text("x = 1\n")
    proc = mlsleuth("scan", "--no-cache", "--max-file-size", value, "a.py", cwd=tmp_path)
    assert proc.returncode == 2, proc.stderr
    assert "Traceback" not in proc.stderr
    assert "--max-file-size" in proc.stderr


@pytest.mark.parametrize("value", ["nan", "inf", "-inf", "1e300"])
def test_config_max_file_size_must_be_a_finite_positive_number(tmp_path, value):
    (tmp_path / "pyproject.toml").write_text(f"[tool.mlsleuth]\nmax-file-size = {value}\n")
    (tmp_path / "a.py").write_text("x = 1\n")
    with pytest.raises(ConfigError, match="max-file-size"):
        load_config(tmp_path)
    proc = mlsleuth("scan", "--no-cache", "a.py", cwd=tmp_path)
    assert proc.returncode == 2 and "Traceback" not in proc.stderr and "max-file-size" in proc.stderr


def test_library_max_file_size_is_checked_too(tmp_path):
    (tmp_path / "a.py").write_text("x = 1\n")
    for bad in (float("nan"), float("inf"), 1e300):
        with pytest.raises(ConfigError, match="max-file-size"):
            scan_paths([tmp_path / "a.py"], root=tmp_path, use_cache=False, max_file_size_mb=bad)


def test_find_pyproject_skips_folders_it_cannot_look_into(tmp_path, monkeypatch):
    (tmp_path / "pyproject.toml").write_text("[tool.mlsleuth]\nselect = ['nan-equality-check']\n")
    locked = tmp_path / "locked" / "inner"
    locked.mkdir(parents=True)
    real_is_file = Path.is_file

    def is_file(self):
        if self.parent == tmp_path / "locked":
            raise PermissionError(errno.EACCES, "Permission denied", str(self))
        return real_is_file(self)

    monkeypatch.setattr(Path, "is_file", is_file)  # running as root, chmod 000 would not stop us
    assert find_pyproject(locked) == tmp_path / "pyproject.toml"


def test_find_pyproject_with_a_path_too_long_for_the_system(tmp_path):
    start = tmp_path / ("x" * 250) / ("y" * 250) / ("z" * 4096)
    assert find_pyproject(start) is None or isinstance(find_pyproject(start), Path)


def test_scan_of_a_path_too_long_for_the_system_is_an_error_entry(tmp_path):
    report = scan_paths([str(tmp_path / ("a" * 4096))], root=tmp_path, use_cache=False)
    assert report.errors and report.errors[0].kind in ("not-found", "os-error", "name-too-long")


@pytest.mark.parametrize(
    "name, text",
    [
        ("deep.json", "[" * 100_000 + "]" * 100_000),
        ("deep2.json", '{"a":' * 100_000 + "1" + "}" * 100_000),
        ("deep.jsonl", '{"lr": 1, "seed": 1, "acc": ' + "[" * 100_000 + "]" * 100_000 + "}\n"),
        ("nested.json", json.dumps([{"lr": 1, "seed": 1, "acc": 0.5, "cfg": json.loads('{"a":' * 900 + "1" + "}" * 900)}])),
    ],
    ids=["array", "object", "jsonl", "flatten"],
)
def test_sweep_on_deeply_nested_json_is_a_clear_error(tmp_path, name, text):
    (tmp_path / name).write_text(text)
    with pytest.raises(SweepInputError, match="nested"):
        compare_sweep(tmp_path / name, param="lr", metric="acc", seed="seed")
    proc = mlsleuth("sweep", name, "--param", "lr", "--metric", "acc", "--seed", "seed", cwd=tmp_path)
    assert proc.returncode == 2 and "Traceback" not in proc.stderr and "nested" in proc.stderr


# found by the fuzz suite (tests/fuzz): hostile [tool.mlsleuth] settings
def test_deeply_nested_toml_is_a_config_error(tmp_path):
    (tmp_path / "pyproject.toml").write_text("[tool.mlsleuth]\nselect = " + "[" * 5000 + "]" * 5000 + "\n")
    with pytest.raises(ConfigError, match="nested"):
        load_config(tmp_path)
    with pytest.raises(ConfigError, match="nested"):
        find_pyproject(tmp_path)


def test_a_cache_dir_with_a_nul_byte_is_a_config_error(tmp_path):
    (tmp_path / "pyproject.toml").write_text('[tool.mlsleuth]\ncache-dir = "cache\\u0000x"\n')
    with pytest.raises(ConfigError, match="cache-dir"):
        load_config(tmp_path)
