"""Detection benchmark on the blind real-world corpus, plus a false-alarm review of clean public code.

Runs ``mlsleuth scan`` on every variant of every case (buggy, fixed, look-alikes;
each folder its own root, scanned in a long-lived driver process so that
interpreter start-up does not dominate) and ``mlsleuth trace`` (the CLI, one
child per script) on every variant of the runnable cases, then prints per
tool, split and category:

- recall: a buggy variant counts as found when a warning or error
  * (scan, or any finding with a source line) lies within two lines of a bug
    line listed in ``case.json`` (notebooks: same cell, within two lines), or
  * (trace) names the culprit module (the module itself or one inside it, or a
    parameter of it), or, for a case whose bug lives in no single module,
    carries the case's category;
- false alarms: the share of fixed twins and of look-alikes drawing any
  warning or error;
- first finding decisive: of the found cases, how many have the report's first
  warning or error itself hitting the bug (so an agent reading from the top
  meets the cause first);
- the misses (dev split: id and family; test split: ids only, since its
  per-case results must not steer rule work).

It also scans the clean repositories pinned in
``benchmarks/realworld/clean_repos.json`` and lists every warning/error there
with the verdict recorded in ``docs/evidence/noise_verdicts.json``.

Run from the repository root::

    python benchmarks/bench_realworld.py                 # everything, ~15 min on 2 cores
    python benchmarks/bench_realworld.py --tools scan    # static only, ~3 min
    python benchmarks/bench_realworld.py --write         # also regenerate docs/evidence/realworld/*
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from collections import defaultdict
from concurrent.futures import ThreadPoolExecutor
from dataclasses import asdict, dataclass, field
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "tests" / "realworld"))
sys.path.insert(0, str(ROOT / "benchmarks" / "realworld"))

import corpus
import mirrors

CLEAN_REPOS = ROOT / "benchmarks" / "realworld" / "clean_repos.json"
VERDICTS = ROOT / "docs" / "evidence" / "noise_verdicts.json"
EVIDENCE = ROOT / "docs" / "evidence" / "realworld"
LINE_SLACK = 2
FLAGGING = ("error", "warning")
VERDICT_WORDS = ("true bug", "debatable", "false alarm")


@dataclass
class VariantResult:
    case: str
    variant: str
    tool: str
    findings: list[dict] = field(default_factory=list)  # warnings and errors only
    error: str | None = None  # the tool failed to produce a report
    seconds: float = 0.0

    def flagged(self) -> bool:
        return bool(self.findings)


@dataclass
class CaseOutcome:
    case: str
    split: str
    category: str
    family: str
    tool: str
    hit: bool
    how: str  # 'line', 'module', 'category' or '' for a miss
    tool_failed: bool
    false_alarms: dict[str, list[str]]  # variant -> rule ids flagged there
    first_decisive: bool = False  # found, and the report's first warning/error is itself a hit


# -- running the tools ---------------------------------------------------------------------------------------------


def _env() -> dict[str, str]:
    env = {**os.environ, "OMP_NUM_THREADS": "1", "MKL_NUM_THREADS": "1", "PYTHONDONTWRITEBYTECODE": "1"}
    return env


def _report(cmd: list[str], cwd: Path, timeout: float) -> tuple[dict | None, str | None, float]:
    start = time.perf_counter()
    try:
        run = subprocess.run(cmd, cwd=cwd, capture_output=True, text=True, timeout=timeout, env=_env(), check=False)
    except subprocess.TimeoutExpired:
        return None, f"timed out after {timeout:.0f}s", time.perf_counter() - start
    took = time.perf_counter() - start
    try:
        return json.loads(run.stdout), None, took
    except json.JSONDecodeError:
        tail = (run.stderr or run.stdout).strip().splitlines()[-3:]
        return None, f"exit {run.returncode}, no JSON report: {' | '.join(tail)}", took


def _flagging(report: dict) -> list[dict]:
    return [f for f in report.get("findings", []) if f.get("severity") in FLAGGING]


def scan_variants(jobs: list[tuple[corpus.Case, str]], workers: int) -> list[VariantResult]:
    """Scan every (case, variant) folder, ``workers`` driver processes at a time (see realworld/scan_driver.py)."""
    chunks = [jobs[i::workers] for i in range(workers)]

    def drive(chunk: list[tuple[corpus.Case, str]]) -> list[VariantResult]:
        if not chunk:
            return []
        folders = [str(case.path / variant) for case, variant in chunk]
        run = subprocess.run([sys.executable, str(ROOT / "benchmarks" / "realworld" / "scan_driver.py")],
                             input=json.dumps(folders), capture_output=True, text=True, env=_env(), check=False)
        lines = {}
        for raw in run.stdout.splitlines():
            data = json.loads(raw)
            lines[data["dir"]] = data
        out = []
        for (case, variant), folder in zip(chunk, folders):
            data = lines.get(folder)
            result = VariantResult(case.id, variant, "scan")
            if data is None:
                tail = " | ".join(run.stderr.strip().splitlines()[-3:])
                result.error = f"the scan driver stopped before this folder (exit {run.returncode}): {tail}"
            elif "error" in data:
                result.error, result.seconds = data["error"], data["seconds"]
            else:
                report = data["report"]
                result.findings, result.seconds = _flagging(report), data["seconds"]
                if report.get("errors"):
                    result.error = "; ".join(e.get("message", "?") for e in report["errors"])[:300]
            out.append(result)
        return out

    with ThreadPoolExecutor(max_workers=workers) as pool:
        return [r for chunk in pool.map(drive, chunks) for r in chunk]


def trace_variant(case: corpus.Case, variant: str, steps: int, timeout: float) -> VariantResult:
    folder = case.path / variant
    rt = case.runtime or {}
    cmd = [sys.executable, "-m", "mlsleuth", "trace", str(folder / rt["entry"]), "--cwd", str(folder),
           "--steps", str(steps), "--timeout", str(int(timeout)), "--format", "json", "--exit-zero"]
    if rt.get("args"):
        cmd += ["--", *map(str, rt["args"])]
    report, error, took = _report(cmd, folder, timeout=timeout + 60)
    result = VariantResult(case.id, variant, "trace", error=error, seconds=took)
    if report is not None:
        result.findings = _flagging(report)
    return result


def check_variant(case: corpus.Case, variant: str, steps: int, timeout: float, symptom: bool) -> VariantResult:
    """``mlsleuth check FOLDER --run ENTRY``: the first clue is what an agent reads first."""
    folder = case.path / variant
    rt = case.runtime or {}
    cmd = [sys.executable, "-m", "mlsleuth", "check", str(folder), "--run", rt["entry"], "--steps", str(steps),
           "--timeout", str(int(timeout)), "--format", "json", "--exit-zero"]
    if symptom and rt.get("symptom"):
        cmd += ["--symptom", rt["symptom"]]
    if rt.get("args"):
        cmd += ["--", *map(str, rt["args"])]
    report, error, took = _report(cmd, folder, timeout=timeout + 120)
    result = VariantResult(case.id, variant, "check", error=error, seconds=took)
    if report is not None:
        result.findings = _flagging(report)
    return result


# -- scoring -------------------------------------------------------------------------------------------------------


def _norm_path(path: str | None) -> str:
    path = (path or "").replace("\\", "/")
    while path.startswith("./"):
        path = path[2:]
    return path


def _line_hit(case: corpus.Case, finding: dict) -> bool:
    loc = finding.get("location") or {}
    path, line = _norm_path(loc.get("path")), loc.get("line")
    if line is None:
        return False
    for bug in case.bug_lines:
        if _norm_path(bug.file) != path and not path.endswith("/" + _norm_path(bug.file)):
            continue
        if bug.file.endswith(".ipynb"):
            cell, in_cell = corpus.notebook_position(case.buggy / bug.file, bug.line)
            if loc.get("cell") == cell and abs(line - in_cell) <= LINE_SLACK:
                return True
        elif abs(line - bug.line) <= LINE_SLACK:
            return True
    return False


def _module_hit(case: corpus.Case, finding: dict) -> bool:
    culprit = (case.runtime or {}).get("culprit_module")
    if not culprit:
        return False
    loc = finding.get("location") or {}
    for name in (loc.get("module"), loc.get("parameter")):
        if name and (name == culprit or name.startswith(culprit + ".")):
            return True
    return False


def _hit_by(case: corpus.Case, tool: str, finding: dict) -> str:
    """How one finding hits the case's bug: 'line', 'module', 'category', or '' for no hit."""
    if _line_hit(case, finding):
        return "line"
    if tool in ("trace", "check") and _module_hit(case, finding):
        return "module"
    no_culprit = tool in ("trace", "check") and not (case.runtime or {}).get("culprit_module")
    return "category" if no_culprit and finding.get("category") == case.category else ""


def judge(case: corpus.Case, tool: str, buggy: VariantResult, clean: list[VariantResult]) -> CaseOutcome:
    hits = [_hit_by(case, tool, f) for f in buggy.findings]
    how = next((h for h in ("line", "module") if h in hits), "") or ("category" if "category" in hits else "")
    return CaseOutcome(
        case=case.id, split=case.split, category=case.category, family=case.family, tool=tool,
        hit=bool(how), how=how, tool_failed=buggy.error is not None and not buggy.findings,
        false_alarms={r.variant: sorted({f["rule"] for f in r.findings}) for r in clean if r.flagged()},
        first_decisive=bool(hits and hits[0]),
    )


# -- the corpus run ------------------------------------------------------------------------------------------------


def run_corpus(cases: list[corpus.Case], tools: list[str], workers: int, steps: int, timeout: float,
               progress: bool = True, buggy_only: bool = False, check_steps: int = 20,
               symptom: bool = False) -> tuple[list[CaseOutcome], list[VariantResult]]:
    results: list[VariantResult] = []
    start = time.perf_counter()
    if "scan" in tools:
        results += scan_variants([(c, v) for c in cases for v in ["buggy", "fixed", *c.lookalikes]], workers)
        if progress:
            print(f"  scan: {len(results)} folders, {time.perf_counter() - start:.0f}s", file=sys.stderr)
    for tool in ("trace", "check"):
        if tool not in tools:
            continue
        jobs = [(c, v) for c in cases if c.kind == "runnable" for v in (["buggy"] if buggy_only else ["buggy", "fixed", *c.lookalikes])]
        with ThreadPoolExecutor(max_workers=workers) as pool:
            if tool == "trace":
                futures = [pool.submit(trace_variant, c, v, steps, timeout) for c, v in jobs]
            else:
                futures = [pool.submit(check_variant, c, v, check_steps, timeout, symptom) for c, v in jobs]
            for i, future in enumerate(futures, start=1):
                results.append(future.result())
                if progress and (i % 20 == 0 or i == len(jobs)):
                    print(f"  {tool}: {i}/{len(jobs)} scripts, {time.perf_counter() - start:.0f}s", file=sys.stderr)
    by_key = {(r.tool, r.case, r.variant): r for r in results}
    outcomes = []
    for case in cases:
        for tool in tools:
            if tool in ("trace", "check") and case.kind != "runnable":
                continue
            buggy = by_key[(tool, case.id, "buggy")]
            clean = [by_key[(tool, case.id, v)] for v in ["fixed", *case.lookalikes] if (tool, case.id, v) in by_key]
            outcomes.append(judge(case, tool, buggy, clean))
    return outcomes, results


def summarise(outcomes: list[CaseOutcome], results: list[VariantResult]) -> dict:
    """Per (tool, split): overall and per-category recall, false-alarm rates, misses."""
    clean_runs: dict[tuple[str, str, str], list[VariantResult]] = defaultdict(list)
    split_of = {o.case: o.split for o in outcomes}
    for r in results:
        if r.variant != "buggy" and r.case in split_of:
            kind = "fixed" if r.variant == "fixed" else "lookalike"
            clean_runs[(r.tool, split_of[r.case], kind)].append(r)
    table: dict = {}
    for (tool, split) in sorted({(o.tool, o.split) for o in outcomes}):
        rows = [o for o in outcomes if o.tool == tool and o.split == split]
        cats = defaultdict(list)
        for o in rows:
            cats[o.category].append(o)
        fixed = clean_runs[(tool, split, "fixed")]
        looks = clean_runs[(tool, split, "lookalike")]
        table[f"{tool}/{split}"] = {
            "cases": len(rows),
            "found": sum(o.hit for o in rows),
            "found_by": {how: sum(o.how == how for o in rows) for how in ("line", "module", "category")},
            "first_decisive": sum(o.first_decisive for o in rows),
            "tool_failed": sum(o.tool_failed for o in rows),
            "fixed_flagged": sum(r.flagged() for r in fixed),
            "fixed_total": len(fixed),
            "lookalike_flagged": sum(r.flagged() for r in looks),
            "lookalike_total": len(looks),
            "by_category": {
                c: {"cases": len(v), "found": sum(o.hit for o in v),
                    "false_alarm_variants": sum(bool(o.false_alarms) for o in v)}
                for c, v in sorted(cats.items())
            },
            "misses": [o.case for o in rows if not o.hit],
            "false_alarms": {o.case: o.false_alarms for o in rows if o.false_alarms},
        }
    return table


# -- clean public code ---------------------------------------------------------------------------------------------


def finding_key(repo: str, finding: dict, source: str | None) -> str:
    loc = finding.get("location") or {}
    return f"{repo}|{_norm_path(loc.get('path'))}|{finding['rule']}|{' '.join((source or '').split())}"


def scan_clean_repos(mirror_root: Path, workers: int) -> dict:
    spec = json.loads(CLEAN_REPOS.read_text(encoding="utf-8"))
    verdicts = {v["key"]: v for v in json.loads(VERDICTS.read_text(encoding="utf-8"))["verdicts"]} if VERDICTS.is_file() else {}
    out: dict = {"repos": [], "findings": [], "skipped": []}
    tmp = Path(tempfile.mkdtemp(prefix="mlsleuth-clean-"))
    config = tmp / "pyproject.toml"
    config.write_text("[tool.mlsleuth]\n", encoding="utf-8")
    for entry in spec["repos"]:
        dest = tmp / entry["repo"].replace("/", "+")
        try:
            files = mirrors.extract_sources(mirrors.mirror_dir(mirror_root, entry["repo"]), entry["commit"], dest, entry["paths"])
        except mirrors.MirrorError as exc:
            out["skipped"].append(f"{entry['repo']}: {exc}")
            continue
        cmd = [sys.executable, "-m", "mlsleuth", "scan", *entry["paths"], "--format", "json", "--exit-zero",
               "--no-cache", "--jobs", str(workers), "--config", str(config)]
        report, error, took = _report(cmd, dest, timeout=900)
        if report is None:
            out["skipped"].append(f"{entry['repo']}: scan failed: {error}")
            continue
        flagged = _flagging(report)
        out["repos"].append({"repo": entry["repo"], "commit": entry["commit"], "files": files,
                             "flagged": len(flagged), "seconds": round(took, 1)})
        for f in flagged:
            loc = f.get("location") or {}
            path = dest / _norm_path(loc.get("path"))
            source = None
            if loc.get("line") and path.suffix == ".py" and path.is_file():
                lines = path.read_text(encoding="utf-8", errors="replace").splitlines()
                source = lines[loc["line"] - 1].strip() if loc["line"] <= len(lines) else None
            key = finding_key(entry["repo"], f, source)
            verdict = verdicts.get(key, {})
            out["findings"].append({
                "key": key, "repo": entry["repo"], "path": _norm_path(loc.get("path")), "line": loc.get("line"),
                "rule": f["rule"], "severity": f["severity"], "source": source, "message": f["message"],
                "verdict": verdict.get("verdict", "unreviewed"), "reason": verdict.get("reason", ""),
            })
    return out


# -- output --------------------------------------------------------------------------------------------------------


def _pct(num: int, den: int) -> str:
    return f"{num}/{den} ({100 * num / den:.0f}%)" if den else "-"


def render_markdown(table: dict, clean: dict | None, meta: dict) -> str:
    lines = [
        "# Real-world corpus: detection and false alarms",
        "",
        "Generated by `python benchmarks/bench_realworld.py --write`; do not edit by hand.",
        (f"mlsleuth {meta['version']}, {meta['date']}, {meta['seconds']:.0f} s on {meta['cpus']} CPU(s); "
        f"corpus: {meta['cases']} cases ({meta['static']} static, {meta['runnable']} runnable)."),
        "",
        ("A bug counts as found when a warning or error lies within two lines of a bug line "
        "(trace: or names the culprit module; for bugs in no single module, carries the case's category). "
        "A fixed twin or look-alike counts as a false alarm when it draws any warning or error."),
        "",
        "| tool / split | found | by line / module / category | fixed twins flagged | look-alikes flagged | tool failed |",
        "|---|---|---|---|---|---|",
    ]
    for key, row in table.items():
        by = row["found_by"]
        lines.append(
            f"| {key} | {_pct(row['found'], row['cases'])} | {by['line']} / {by['module']} / {by['category']} | "
            f"{_pct(row['fixed_flagged'], row['fixed_total'])} | {_pct(row['lookalike_flagged'], row['lookalike_total'])} | "
            f"{row['tool_failed']} |"
        )
    lines += ["", "## By category", "", "| tool / split | category | found | cases with a false alarm |", "|---|---|---|---|"]
    for key, row in table.items():
        for cat, c in row["by_category"].items():
            lines.append(f"| {key} | {cat} | {_pct(c['found'], c['cases'])} | {c['false_alarm_variants']} |")
    lines += ["", "## Misses on the dev split", ""]
    for key, row in table.items():
        if key.endswith("/dev"):
            lines.append(f"- **{key}** ({len(row['misses'])}): " + (", ".join(f"`{m}`" for m in row["misses"]) or "none"))
    if clean is not None:
        lines += ["", "## Clean public code", ""]
        counts = defaultdict(int)
        for f in clean["findings"]:
            counts[f["verdict"]] += 1
        lines.append("| repository | commit | files | warnings/errors | seconds |")
        lines.append("|---|---|---|---|---|")
        for r in clean["repos"]:
            lines.append(f"| {r['repo']} | `{r['commit'][:12]}` | {r['files']} | {r['flagged']} | {r['seconds']} |")
        lines.append("")
        lines.append("Verdicts (see `docs/evidence/noise_review.md`): " +
                     ", ".join(f"{k}: {counts[k]}" for k in (*VERDICT_WORDS, "unreviewed")) + ".")
        for s in clean["skipped"]:
            lines.append(f"- skipped {s}")
    return "\n".join(lines) + "\n"


def render_noise_review(clean: dict) -> str:
    lines = [
        "# Noise review: mlsleuth scan on widely used clean training code",
        "",
        ("Generated by `python benchmarks/bench_realworld.py --write` from the scan and the verdicts recorded in "
        "`docs/evidence/noise_verdicts.json` (hand-written, keyed by repository, path, rule and the flagged source line). "
        "Every warning and error is listed with its verdict: *true bug* (the code there really has the problem), "
        "*debatable*, or *false alarm*."),
        "",
        "| repository | commit | files scanned | warnings/errors |",
        "|---|---|---|---|",
    ]
    for r in clean["repos"]:
        lines.append(f"| {r['repo']} | `{r['commit'][:12]}` | {r['files']} | {r['flagged']} |")
    counts = defaultdict(int)
    for f in clean["findings"]:
        counts[f["verdict"]] += 1
    lines += ["", "Totals: " + ", ".join(f"{k}: {counts[k]}" for k in (*VERDICT_WORDS, "unreviewed")) + ".", ""]
    for repo in sorted({f["repo"] for f in clean["findings"]}):
        lines += [f"## {repo}", "", "| where | rule | verdict | why |", "|---|---|---|---|"]
        for f in sorted((f for f in clean["findings"] if f["repo"] == repo), key=lambda f: (f["path"], f["line"] or 0)):
            why = f["reason"].replace("|", "\\|") or "-"
            lines.append(f"| `{f['path']}:{f['line']}` | `{f['rule']}` | {f['verdict']} | {why} |")
        lines.append("")
    for s in clean["skipped"]:
        lines.append(f"- skipped {s}")
    return "\n".join(lines) + "\n"


README_BEGIN = "<!-- realworld results: generated by benchmarks/bench_realworld.py --write -->"
README_END = "<!-- end realworld results -->"


def render_readme_block(summary: dict) -> str:
    """The README's claims about detection, from ``docs/evidence/realworld/results.json``."""
    table, meta = summary["table"], summary["meta"]
    lines = [README_BEGIN, "",
             (f"Measured on the blind real-world corpus ({meta['cases']} cases modelled on public bug reports, "
             f"{meta['static']} static and {meta['runnable']} runnable; `tests/realworld/`), mlsleuth {meta['version']}, "
             f"{meta['date']}:"), "",
             "| tool | split | bugs found | fixed twins flagged | look-alikes flagged |", "|---|---|---|---|---|"]
    for key, row in table.items():
        tool, split = key.split("/")
        lines.append(f"| `{tool}` | {split} | {_pct(row['found'], row['cases'])} | "
                     f"{_pct(row['fixed_flagged'], row['fixed_total'])} | {_pct(row['lookalike_flagged'], row['lookalike_total'])} |")
    verdicts = summary.get("clean_verdicts")
    if verdicts:
        total = sum(verdicts.values())
        lines += ["", (f"On widely used clean training code (pytorch/examples, nanoGPT, minGPT, timm, CleanRL, DeepXDE, "
                  f"torchtune, litgpt at pinned commits) `scan` raises {total} warnings/errors: "
                  f"{verdicts.get('true bug', 0)} real bugs, {verdicts.get('debatable', 0)} debatable, "
                  f"{verdicts.get('false alarm', 0)} false alarms "
                  f"([review](docs/evidence/noise_review.md)). Details: "
                  f"[docs/evidence/realworld/results.md](docs/evidence/realworld/results.md).")]
    lines += ["", README_END]
    return "\n".join(lines)


def update_readme(block: str, readme: Path = ROOT / "README.md") -> None:
    text = readme.read_text(encoding="utf-8")
    start, end = text.find(README_BEGIN), text.find(README_END)
    if start < 0 or end < 0:
        raise SystemExit(f"{readme}: no generated results block ({README_BEGIN} ... {README_END})")
    readme.write_text(text[:start] + block + text[end + len(README_END):], encoding="utf-8")


def print_table(table: dict) -> None:
    for key, row in table.items():
        by = row["found_by"]
        print(f"\n== {key}: found {_pct(row['found'], row['cases'])} "
              f"(line {by['line']}, module {by['module']}, category {by['category']}); "
              f"fixed twins flagged {_pct(row['fixed_flagged'], row['fixed_total'])}; "
              f"look-alikes flagged {_pct(row['lookalike_flagged'], row['lookalike_total'])}; "
              f"first finding decisive in {_pct(row.get('first_decisive', 0), row['found'])} of the found; "
              f"tool failed on {row['tool_failed']} buggy variant(s)")
        for cat, c in row["by_category"].items():
            print(f"   {cat:<16} found {_pct(c['found'], c['cases']):<14} cases with a false alarm: {c['false_alarm_variants']}")
        if key.endswith("/dev"):
            print("   misses: " + (", ".join(row["misses"]) or "none"))
            for case, fa in row["false_alarms"].items():
                print(f"   false alarm: {case}: " + "; ".join(f"{v}: {', '.join(r)}" for v, r in fa.items()))
        else:
            # the held-out split stays blind: a session that reads its ids has to move those cases to dev
            print(f"   misses: {len(row['misses'])} (ids not printed for the held-out split; they are in --json)")


def print_check_first_clue(outcomes: list[CaseOutcome]) -> None:
    """How often check's first clue is the decisive one, among the runnable cases some tool of this run found."""
    for split in sorted({o.split for o in outcomes}):
        by_case: dict[str, dict[str, CaseOutcome]] = defaultdict(dict)
        for o in outcomes:
            if o.split == split:
                by_case[o.case][o.tool] = o
        found = {c: t for c, t in by_case.items() if "check" in t and any(o.hit for o in t.values())}
        first = [c for c, t in found.items() if t["check"].first_decisive]
        print(f"\n== check/{split}: first clue decisive in {_pct(len(first), len(found))} of the runnable cases "
              f"that a tool of this run ({', '.join(sorted({tool for t in by_case.values() for tool in t}))}) found")
        if split == "dev":
            print("   not first: " + (", ".join(sorted(set(found) - set(first))) or "none"))


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--split", choices=("dev", "test", "both"), default="both")
    parser.add_argument("--tools", default="scan,trace",
                        help="comma-separated: scan, trace, check (default scan,trace; check: `mlsleuth check --run ENTRY` "
                             "on the runnable cases, scored on its first clue)")
    parser.add_argument("--runnable-only", action="store_true", help="only the runnable cases")
    parser.add_argument("--buggy-only", action="store_true", help="trace/check: run only the buggy variants (no false-alarm numbers)")
    parser.add_argument("--check-steps", type=int, default=20, help="optimizer steps check traces (default 20, its own default)")
    parser.add_argument("--symptom", action="store_true", help="check: pass each case's recorded symptom as --symptom")
    parser.add_argument("--case", action="append", help="only these case ids (repeatable)")
    parser.add_argument("--limit", type=int, help="only the first N cases of each split (a smoke run)")
    parser.add_argument("--workers", type=int, default=2, help="tool runs at a time (default 2)")
    parser.add_argument("--steps", type=int, default=20, help="optimizer steps trace watches (default 20)")
    parser.add_argument("--timeout", type=float, default=120, help="trace timeout per script in seconds (default 120)")
    parser.add_argument("--clean", action=argparse.BooleanOptionalAction, default=True,
                        help="scan the pinned clean repositories too (default on)")
    parser.add_argument("--mirrors", type=Path, default=Path("/work/.mirror"), help="where the git mirrors are")
    parser.add_argument("--json", type=Path, help="write the full results as JSON here")
    parser.add_argument("--write", action="store_true", help="regenerate docs/evidence/realworld/ and noise_review.md")
    args = parser.parse_args(argv)
    tools = [t.strip() for t in args.tools.split(",") if t.strip()]
    if not tools or set(tools) - {"scan", "trace", "check"}:
        parser.error("--tools takes scan, trace, check (comma-separated)")
    splits = ("dev", "test") if args.split == "both" else (args.split,)
    try:
        cases = []
        for split in splits:
            chosen = [c for c in corpus.load_split(split) if (not args.case or c.id in args.case)
                      and (not args.runnable_only or c.kind == "runnable")]
            cases += chosen[: args.limit] if args.limit else chosen
    except corpus.CaseError as exc:
        print(f"bench_realworld: malformed case: {exc}", file=sys.stderr)
        return 2
    if not cases:
        print("bench_realworld: no cases selected", file=sys.stderr)
        return 2
    start = time.perf_counter()
    outcomes, results = run_corpus(cases, tools, args.workers, args.steps, args.timeout, buggy_only=args.buggy_only,
                                   check_steps=args.check_steps, symptom=args.symptom)
    table = summarise(outcomes, results)
    print_table(table)
    if "check" in tools:
        print_check_first_clue(outcomes)
    clean = None
    if args.clean:
        clean = scan_clean_repos(args.mirrors, args.workers)
        print(f"\n== clean public code: {sum(r['flagged'] for r in clean['repos'])} warnings/errors "
              f"in {len(clean['repos'])} repositories")
        for f in clean["findings"]:
            print(f"   [{f['verdict']}] {f['repo']} {f['path']}:{f['line']} {f['rule']}: {f['source'] or ''}")
        for s in clean["skipped"]:
            print(f"   skipped {s}")
    took = time.perf_counter() - start
    print(f"\n{len(cases)} cases, {len(results)} tool runs, {took:.0f}s wall with {args.workers} worker(s)")
    import mlsleuth

    meta = {"version": mlsleuth.__version__, "date": time.strftime("%Y-%m-%d"), "seconds": took,
            "cpus": os.cpu_count(), "cases": len(cases), "static": sum(c.kind == "static" for c in cases),
            "runnable": sum(c.kind == "runnable" for c in cases)}
    full = {"meta": meta, "table": table, "outcomes": [asdict(o) for o in outcomes],
            "runs": [asdict(r) for r in results], "clean": clean}
    if args.json:
        args.json.write_text(json.dumps(full, indent=1) + "\n", encoding="utf-8")
    if args.write:
        if args.case or args.limit or args.split != "both" or set(tools) != {"scan", "trace"} or not args.clean:
            parser.error("--write needs the whole run: no --case/--limit/--split/--tools/--no-clean")
        EVIDENCE.mkdir(parents=True, exist_ok=True)
        (EVIDENCE / "results.md").write_text(render_markdown(table, clean, meta), encoding="utf-8")
        summary = {"meta": {k: v for k, v in meta.items() if k != "seconds"}, "table": table,
                   "clean": {k: clean[k] for k in ("repos", "skipped")} if clean else None,
                   "clean_verdicts": {w: sum(f["verdict"] == w for f in clean["findings"])
                                      for w in (*VERDICT_WORDS, "unreviewed")} if clean else None}
        (EVIDENCE / "results.json").write_text(json.dumps(summary, indent=1) + "\n", encoding="utf-8")
        update_readme(render_readme_block(summary))
        if clean is not None:
            (ROOT / "docs" / "evidence" / "noise_review.md").write_text(render_noise_review(clean), encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())
