"""Benchmark `mlsleuth scan` against `ruff check` on the installed PyTorch source tree.

    python benchmarks/bench_scan.py [--tree PATH] [--repeat N] [--jobs N] [--json] [--rule-times]

Both tools run as command-line programs in fresh processes, from the tree's
top folder, on the same tree in the same run, in interleaved rounds, so the
ratio is meaningful on any machine, even a shared one:

* mlsleuth cold: its cache folder is deleted first;
* mlsleuth warm: the same command again with the cache just written;
* ruff: `ruff check --no-cache --isolated` (its default rule set), the peer.

Goals (issue #2): cold <= 2x ruff, warm <= 0.5x ruff. The script also prints
files per second, the peak resident memory of the largest process of the
mlsleuth runs (getrusage of self and children), and every finding mlsleuth
made on torch's own source, so they can be reviewed: library code is not a
training loop, so findings there are likely false positives.

``--rule-times`` adds a one-process CPU breakdown (gate, parse, context,
each rule, freeing the trees) on exactly the files the scanner's gates let
through; parsing those files alone, compared with ruff's CPU time, is the
floor no work on rules or the engine can go under.

The tree defaults to the installed ``torch`` package, located without
importing it.
"""

from __future__ import annotations

import argparse
import importlib.util
import json
import os
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path


def torch_tree() -> Path:
    spec = importlib.util.find_spec("torch")
    if spec is None or not spec.submodule_search_locations:
        raise SystemExit("torch is not installed here; pass --tree PATH to benchmark another source tree")
    return Path(list(spec.submodule_search_locations)[0])


def ruff_command() -> list[str]:
    exe = shutil.which("ruff") or str(Path(sys.executable).parent / "ruff")
    if not os.access(exe, os.X_OK):
        raise SystemExit("ruff is not installed; `pip install ruff` (it is in the dev extra)")
    return [exe]


def peak_rss_mb() -> float:
    """Largest resident set of this process or any finished child, in MiB (Linux reports KiB, macOS bytes)."""
    scale = 1 if sys.platform == "darwin" else 1024
    peak = max(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss, resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss)
    return peak * scale / 2**20


def _children_cpu() -> float:
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def timed(argv: list[str], cwd: Path) -> tuple[float, float]:
    """(wall seconds, CPU seconds of the process and everything it started)."""
    cpu_before = _children_cpu()
    started = time.perf_counter()
    proc = subprocess.run(argv, cwd=cwd, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, check=False)
    elapsed = time.perf_counter() - started
    if proc.returncode not in (0, 1):
        sys.stderr.write(proc.stderr.decode(errors="replace")[-3000:])
        raise SystemExit(f"{' '.join(argv[:3])} ... failed with status {proc.returncode}")
    return elapsed, _children_cpu() - cpu_before


def rule_times(tree: Path) -> dict:
    """CPU seconds of each stage of a cold scan, in this process, on exactly the files the scanner parses.

    The files and the rules run on each are chosen by the scanner's own gates (ripgrep
    candidates, then :func:`~mlsleuth.scan.analyze.rules_for`). ``parse_s`` alone is the
    floor of any scanner that has to parse those files with :mod:`ast`.
    """
    import ast
    import gc
    import warnings

    from mlsleuth.config import Config
    from mlsleuth.scan import discovery
    from mlsleuth.scan.analyze import active_rules, rules_for
    from mlsleuth.scan.analysis.context import FileContext
    from mlsleuth.scan.engine import SourceProblem, decode_source
    from mlsleuth.scan.ignore import PathMatcher

    rules = active_rules(None)
    rg = discovery.find_rg()
    listing = discovery.discover([str(tree)], str(tree), PathMatcher(list(Config().exclude), str(tree)), rg=rg)
    if rg:
        candidates = discovery.rg_candidates(rg, listing.dirs, sorted({t for r in rules for t in r.triggers}), str(tree))
    else:
        candidates = set(listing.files)
    per_rule = {r.id: 0.0 for r in rules}
    gate_s = parse_s = context_s = free_s = 0.0
    files = size = 0
    gc.disable()  # as in the scanner's workers while a file is analysed
    for path in listing.files:
        if not path.endswith(".py") or path not in candidates:
            continue
        try:
            source = decode_source(Path(path).read_bytes())
        except (OSError, SourceProblem):
            continue
        t0 = time.process_time()
        active = rules_for(source, rules)
        t1 = time.process_time()
        gate_s += t1 - t0
        if not active:
            continue
        try:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                module = ast.parse(source)
        except (SyntaxError, ValueError, RecursionError):
            continue
        t2 = time.process_time()
        ctx = FileContext(source, module, path)
        t3 = time.process_time()
        parse_s += t2 - t1
        context_s += t3 - t2
        files += 1
        size += len(source)
        for rule in active:
            start = time.process_time()
            try:
                for _ in rule.check(ctx):
                    pass
            except Exception:  # noqa: BLE001 - a crashing rule is timed up to its crash
                pass
            per_rule[rule.id] += time.process_time() - start
        t4 = time.process_time()
        ctx.release()
        del ctx, module
        free_s += time.process_time() - t4
    gc.enable()
    slowest = sorted(per_rule.items(), key=lambda kv: -kv[1])[:10]
    return {
        "candidates": len(candidates),
        "files": files,
        "megabytes": round(size / 1e6, 1),
        "gate_s": round(gate_s, 2),
        "parse_s": round(parse_s, 2),
        "context_s": round(context_s, 2),
        "rules_s": round(sum(per_rule.values()), 2),
        "free_s": round(free_s, 2),
        "slowest_rules": [(rid, round(secs, 2)) for rid, secs in slowest],
    }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--tree", type=Path, help="source tree to scan (default: the installed torch package)")
    parser.add_argument("--repeat", type=int, default=1, help="runs of each measurement; the median is reported")
    parser.add_argument("--jobs", type=int, help="mlsleuth worker processes (default: its own choice)")
    parser.add_argument("--json", action="store_true", help="print one JSON object instead of text")
    parser.add_argument(
        "--rule-times", action="store_true", help="also time each stage and rule on the files the scanner parses (one process; slow)"
    )
    args = parser.parse_args(argv)
    tree = (args.tree or torch_tree()).resolve()
    if not tree.is_dir():
        raise SystemExit(f"not a folder: {tree}")

    work = Path(tempfile.mkdtemp(prefix="mlsleuth-bench-"))
    cache = work / "cache"
    config = work / "pyproject.toml"
    config.write_text(f'[tool.mlsleuth]\ncache-dir = "{cache.as_posix()}"\n', encoding="utf-8")
    cold_path, warm_path = work / "cold.json", work / "warm.json"

    def scan(out: Path) -> list[str]:
        # -P: do not put the working folder (the scanned tree) first on sys.path;
        # torch's own ``__future__.py`` would shadow the standard library's.
        argv = [sys.executable, "-P", "-m", "mlsleuth", "scan", ".", "--config", str(config), "--format", "json", "-o", str(out)]
        return argv + (["--jobs", str(args.jobs)] if args.jobs else [])

    ruff = [*ruff_command(), "check", "--no-cache", "--isolated", "--exit-zero", "--quiet", "."]

    cold, warm, peer = [], [], []
    mlsleuth_peak = 0.0
    try:
        # Interleaved (cold, warm, ruff) rounds: on a shared machine the load changes over
        # a run, and both tools of a round see about the same.
        for round_ in range(args.repeat):
            shutil.rmtree(cache, ignore_errors=True)
            cold.append(timed(scan(cold_path), tree))
            warm.append(timed(scan(warm_path), tree))
            if round_ == 0:
                mlsleuth_peak = peak_rss_mb()  # before ruff has run: only mlsleuth processes count
            peer.append(timed(ruff, tree))
        report = json.loads(cold_path.read_text(encoding="utf-8"))
        warm_report = json.loads(warm_path.read_text(encoding="utf-8"))
    finally:
        shutil.rmtree(work, ignore_errors=True)

    stats = report["summary"]["stats"]
    if warm_report["summary"]["stats"].get("cache_hits") != stats.get("candidates"):
        print("warning: the warm run did not hit the cache for every file (did the scanner's code change between runs?)", file=sys.stderr)
    t_cold, t_warm, t_ruff = (statistics.median(w for w, _ in runs) for runs in (cold, warm, peer))
    c_cold, c_warm, c_ruff = (statistics.median(c for _, c in runs) for runs in (cold, warm, peer))
    findings = sorted((f["rule"], f["location"]["path"], f["location"].get("line") or 0) for f in report["findings"])
    result = {
        "tree": str(tree),
        "files_listed": stats.get("files_listed"),
        "candidates": stats.get("candidates"),
        "parsed": stats.get("parsed"),
        "jobs": stats.get("jobs"),
        "walker": stats.get("walker"),
        "cpus": os.cpu_count(),
        "load_avg_1m": os.getloadavg()[0] if hasattr(os, "getloadavg") else None,
        "seconds": {"mlsleuth_cold": round(t_cold, 3), "mlsleuth_warm": round(t_warm, 3), "ruff": round(t_ruff, 3)},
        "cpu_seconds": {"mlsleuth_cold": round(c_cold, 3), "mlsleuth_warm": round(c_warm, 3), "ruff": round(c_ruff, 3)},
        "runs": {name: [round(w, 3) for w, _ in runs] for name, runs in (("mlsleuth_cold", cold), ("mlsleuth_warm", warm), ("ruff", peer))},
        "cpu_ratio_cold_to_ruff": round(c_cold / c_ruff, 2) if c_ruff else None,
        "cpu_ratio_warm_to_ruff": round(c_warm / c_ruff, 2) if c_ruff else None,
        "cache_hits_warm": warm_report["summary"]["stats"].get("cache_hits"),
        "ratio_cold_to_ruff": round(t_cold / t_ruff, 2),
        "ratio_warm_to_ruff": round(t_warm / t_ruff, 2),
        "goals": {"cold_le_2x_ruff": t_cold <= 2 * t_ruff, "warm_le_half_ruff": t_warm <= 0.5 * t_ruff},
        "files_per_second": {
            "mlsleuth_cold": round(stats.get("files_listed", 0) / t_cold, 1),
            "mlsleuth_warm": round(stats.get("files_listed", 0) / t_warm, 1),
        },
        "peak_rss_mb_mlsleuth": round(mlsleuth_peak, 1),
        "errors": len(report["errors"]),
        "findings": [{"rule": r, "where": f"{p}:{line}"} for r, p, line in findings],
    }
    if args.rule_times:
        result["cpu_breakdown"] = b = rule_times(tree)
        result["cpu_breakdown"]["parse_floor_to_ruff_cpu"] = round(b["parse_s"] / c_ruff, 2) if c_ruff else None
    if args.json:
        print(json.dumps(result, indent=2))
        return 0
    s = result["seconds"]
    print(f"tree: {tree}")
    print(f"files: {result['files_listed']} listed, {result['candidates']} candidates, {result['parsed']} parsed; "
          f"jobs {result['jobs']}, {result['cpus']} CPUs, 1-min load {result['load_avg_1m']}")
    print(f"mlsleuth cold  {s['mlsleuth_cold']:8.3f} s  ({result['ratio_cold_to_ruff']:.2f}x ruff; goal <= 2x: {'met' if result['goals']['cold_le_2x_ruff'] else 'NOT met'})"
          f"  {result['files_per_second']['mlsleuth_cold']} files/s")
    print(f"mlsleuth warm  {s['mlsleuth_warm']:8.3f} s  ({result['ratio_warm_to_ruff']:.2f}x ruff; goal <= 0.5x: {'met' if result['goals']['warm_le_half_ruff'] else 'NOT met'})"
          f"  {result['files_per_second']['mlsleuth_warm']} files/s")
    print(f"ruff check     {s['ruff']:8.3f} s")
    c = result["cpu_seconds"]
    print(f"CPU seconds (all processes): mlsleuth cold {c['mlsleuth_cold']}, warm {c['mlsleuth_warm']}, ruff {c['ruff']} "
          f"(cold/ruff {result['cpu_ratio_cold_to_ruff']}, warm/ruff {result['cpu_ratio_warm_to_ruff']})")
    print(f"peak RSS (largest mlsleuth process): {result['peak_rss_mb_mlsleuth']} MiB; per-file errors: {result['errors']}")
    if "cpu_breakdown" in result:
        b = result["cpu_breakdown"]
        print(f"one-process CPU breakdown: gate {b['gate_s']} s over {b['candidates']} candidates; on the {b['files']} files "
              f"({b['megabytes']} MB) that pass it: parse {b['parse_s']} s, context {b['context_s']} s, rules {b['rules_s']} s, "
              f"freeing the trees {b['free_s']} s")
        print(f"parsing alone (the floor for these files) is {b['parse_floor_to_ruff_cpu']}x ruff's CPU time; slowest rules:")
        for rid, secs in b["slowest_rules"]:
            print(f"  {rid:<40} {secs:8.2f} s")
    print(f"findings on this tree ({len(findings)}), for review:")
    for item in result["findings"]:
        print(f"  {item['rule']:<40} {item['where']}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
