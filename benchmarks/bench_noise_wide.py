"""A wider false-alarm review: scan a broad body of clean training code and list every warning/error.

The repositories (pinned commits, read from git mirrors) and the installed
frameworks to scan are listed in ``benchmarks/realworld/clean_repos_wide.json``;
the hand-written verdicts live in ``docs/evidence/noise_verdicts_wide.json``
(keyed by repository, path, rule and a hash of the flagged source line). Two steps::

    python benchmarks/bench_noise_wide.py scan --out /tmp/wide_after.json
    python benchmarks/bench_noise_wide.py render --before /tmp/wide_before.json \\
        --after /tmp/wide_after.json --write docs/evidence/noise_review_wide.md

The scans behind the committed review are kept in ``docs/evidence/measurements/noise_wide_before.json``
(mlsleuth at main 478ec46, before the fixes) and ``noise_wide_after.json``.
``scan`` writes every warning and error (with the source line it points at);
``render`` writes the review: what was scanned, warnings per rule before and
after a change, and each finding still reported after it with its verdict
(findings that the change silenced are listed with theirs too).
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import subprocess
import sys
import tempfile
import time
from collections import Counter
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "benchmarks" / "realworld"))

import mirrors

SPEC = ROOT / "benchmarks" / "realworld" / "clean_repos_wide.json"
VERDICTS = ROOT / "docs" / "evidence" / "noise_verdicts_wide.json"
FLAGGING = ("error", "warning")


def _norm(path: str | None) -> str:
    path = (path or "").replace("\\", "/")
    while path.startswith("./"):
        path = path[2:]
    return path


def key_of(repo: str, path: str, rule: str, source: str | None) -> str:
    """Repository, path, rule and a short hash of the flagged line (whitespace collapsed): stable across line
    shifts, and no third-party code is copied into the verdicts."""
    digest = hashlib.sha1(" ".join((source or "").split()).encode()).hexdigest()[:12]
    return f"{repo}|{path}|{rule}|{digest}"


def _scan(paths: list[str], cwd: Path, config: Path, jobs: int, code: Path) -> dict:
    cmd = [sys.executable, "-m", "mlsleuth", "scan", *paths, "--format", "json", "--exit-zero", "--no-cache",
           "--jobs", str(jobs), "--config", str(config)]
    env = dict(os.environ, OMP_NUM_THREADS="1", PYTHONPATH=str(code))
    run = subprocess.run(cmd, cwd=cwd, capture_output=True, text=True, env=env, timeout=3600, check=False)
    try:
        return json.loads(run.stdout)
    except json.JSONDecodeError as exc:
        raise SystemExit(f"scan of {cwd} gave no JSON report (exit {run.returncode}): {run.stderr[-500:]}") from exc


def _collect(name: str, report: dict, base: Path) -> list[dict]:
    out = []
    for f in report.get("findings", []):
        if f.get("severity") not in FLAGGING:
            continue
        loc = f.get("location") or {}
        path = _norm(loc.get("path"))
        source = None
        file = base / path
        if loc.get("line") and file.suffix == ".py" and file.is_file():
            lines = file.read_text(encoding="utf-8", errors="replace").splitlines()
            source = lines[loc["line"] - 1].strip() if loc["line"] <= len(lines) else None
        # only where and which rule: the flagged code itself (and messages quoting it) stays out of the record
        out.append({"key": key_of(name, path, f["rule"], source), "repo": name, "path": path,
                    "line": loc.get("line"), "rule": f["rule"], "severity": f["severity"]})
    return out


def scan_all(mirror_root: Path, jobs: int, only: set[str] | None, code: Path, spec_path: Path = SPEC) -> dict:
    spec = json.loads(spec_path.read_text(encoding="utf-8"))
    tmp = Path(tempfile.mkdtemp(prefix="mlsleuth-wide-"))
    config = tmp / "pyproject.toml"
    config.write_text("[tool.mlsleuth]\n", encoding="utf-8")
    out: dict = {"sources": [], "findings": [], "skipped": []}
    for entry in spec["repos"]:
        if only and entry["repo"] not in only:
            continue
        dest = tmp / entry["repo"].replace("/", "+")
        try:
            files = mirrors.extract_sources(mirrors.mirror_dir(mirror_root, entry["repo"]), entry["commit"], dest,
                                            entry["paths"])
        except mirrors.MirrorError as exc:
            out["skipped"].append(f"{entry['repo']}: {exc} (missing: fetch github:{entry['repo']} to sweep it)")
            print(f"  missing, skipped: {entry['repo']} ({exc})", file=sys.stderr)
            continue
        start = time.perf_counter()
        report = _scan(entry["paths"], dest, config, jobs, code)
        found = _collect(entry["repo"], report, dest)
        out["sources"].append({"name": entry["repo"], "pin": entry["commit"][:12], "paths": entry["paths"],
                               "files": files, "flagged": len(found), "seconds": round(time.perf_counter() - start)})
        out["findings"] += found
        print(f"  {entry['repo']}: {files} files, {len(found)} warnings/errors", file=sys.stderr)
    for entry in spec.get("packages", []):
        name = entry["package"]
        if only and name not in only:
            continue
        try:
            module = __import__("importlib.util").util.find_spec(name)
        except (ImportError, ValueError):
            module = None
        if module is None or not module.submodule_search_locations:
            out["skipped"].append(f"{name}: not installed")
            continue
        pkg = Path(list(module.submodule_search_locations)[0])
        files = sum(1 for _ in pkg.rglob("*.py"))
        start = time.perf_counter()
        report = _scan([name], pkg.parent, config, jobs, code)
        found = _collect(name, report, pkg.parent)
        out["sources"].append({"name": name, "pin": f"installed {entry['version']}", "paths": [name], "files": files,
                               "flagged": len(found), "seconds": round(time.perf_counter() - start)})
        out["findings"] += found
        print(f"  {name}: {files} files, {len(found)} warnings/errors", file=sys.stderr)
    return out


WIDE_HEADER = [
    "# Wide noise review: mlsleuth scan on clean public training code and installed frameworks",
    "",
    "Generated by `python benchmarks/bench_noise_wide.py render` from two scans (before and after this "
    "review's fixes) and the hand-written verdicts in `docs/evidence/noise_verdicts_wide.json`. What was "
    "scanned is pinned in `benchmarks/realworld/clean_repos_wide.json`. Every warning and error is listed with "
    "a verdict: *true bug*, *debatable*, or *false alarm* (a false alarm is fixed in the rule, not here).",
]


def render(before: dict, after: dict, verdicts_path: Path = VERDICTS, header: list[str] | None = None) -> str:
    recorded = json.loads(verdicts_path.read_text(encoding="utf-8")) if verdicts_path.is_file() else {"verdicts": []}
    verdicts = {v["key"]: v for v in recorded["verdicts"]}
    lines = [
        *(header or WIDE_HEADER),
        "",
        "## What was scanned",
        "",
        "| source | commit / version | paths | files | warnings/errors before | after |",
        "|---|---|---|---|---|---|",
    ]
    after_by = {s["name"]: s for s in after["sources"]}
    for s in before["sources"]:
        a = after_by.get(s["name"], {})
        lines.append(f"| {s['name']} | `{s['pin']}` | {', '.join(s['paths'])} | {s['files']} | {s['flagged']} | "
                     f"{a.get('flagged', '-')} |")
    total_files = sum(s["files"] for s in before["sources"])
    lines += ["", f"Files: {total_files}. Warnings/errors: {len(before['findings'])} before, "
                  f"{len(after['findings'])} after.", ""]
    for skipped in after.get("skipped", []):
        lines.append(f"- skipped: {skipped}")
    lines += ["## Warnings per rule", "", "| rule | before | after |", "|---|---|---|"]
    b_rules, a_rules = Counter(f["rule"] for f in before["findings"]), Counter(f["rule"] for f in after["findings"])
    for rule in sorted(set(b_rules) | set(a_rules), key=lambda r: (-b_rules[r], r)):
        lines.append(f"| `{rule}` | {b_rules[rule]} | {a_rules[rule]} |")
    after_keys = {f["key"] for f in after["findings"]}
    tally: Counter = Counter()
    rows: dict[str, list[str]] = {}
    seen: set[tuple] = set()
    for f in sorted(before["findings"] + after["findings"], key=lambda f: (f["repo"], f["path"], f["line"] or 0)):
        ident = (f["key"], f["line"])
        if ident in seen:
            continue
        seen.add(ident)
        v = verdicts.get(f["key"], {})
        verdict = v.get("verdict", "unreviewed")
        state = "still reported" if f["key"] in after_keys else "silenced"
        tally[(verdict, state)] += 1
        rows.setdefault(f["repo"], []).append(
            f"| `{f['path']}:{f['line']}` | `{f['rule']}` | {state} | {verdict} | {v.get('reason', '')} |")
    lines += ["", "## Verdicts", "", "Totals: " + ", ".join(
        f"{verdict} ({state}): {n}" for (verdict, state), n in sorted(tally.items())) + ".", ""]
    for repo in sorted(rows):
        lines += [f"### {repo}", "", "| where | rule | after the fixes | verdict | why |", "|---|---|---|---|---|",
                  *rows[repo], ""]
    lines += recorded.get("notes", [])
    return "\n".join(lines).rstrip() + "\n"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    sub = parser.add_subparsers(dest="command", required=True)
    scan = sub.add_parser("scan", help="scan everything in the spec and write the warnings/errors as JSON")
    scan.add_argument("--out", type=Path, required=True)
    scan.add_argument("--mirrors", type=Path, default=Path("/work/.mirror"))
    scan.add_argument("--jobs", type=int, default=2)
    scan.add_argument("--code", type=Path, default=ROOT / "server",
                      help="the mlsleuth sources to scan with (another checkout's server/ for a before/after pair)")
    scan.add_argument("--only", help="comma-separated repository/package names to scan (default: all)")
    ren = sub.add_parser("render", help="write the review from a before and an after scan")
    ren.add_argument("--before", type=Path, required=True)
    ren.add_argument("--after", type=Path, required=True)
    ren.add_argument("--write", type=Path, help="write the markdown here (default: print it)")
    args = parser.parse_args()
    if args.command == "scan":
        only = set(args.only.split(",")) if args.only else None
        data = scan_all(args.mirrors, args.jobs, only, args.code.resolve())
        args.out.write_text(json.dumps(data, indent=1) + "\n", encoding="utf-8")
        print(f"{len(data['findings'])} warnings/errors in {sum(s['files'] for s in data['sources'])} files",
              file=sys.stderr)
    else:
        text = render(json.loads(args.before.read_text(encoding="utf-8")),
                      json.loads(args.after.read_text(encoding="utf-8")))
        if args.write:
            args.write.write_text(text, encoding="utf-8")
        else:
            print(text)


if __name__ == "__main__":
    main()
