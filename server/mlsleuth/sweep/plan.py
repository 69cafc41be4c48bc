"""``mlsleuth sweep --plan``: the paired design (every seed with every value) as launcher commands."""

from __future__ import annotations

import re
import shlex
import string

from mlsleuth.sweep.table import SweepInputError

PLACEHOLDERS = ("value", "seed", "param")


def parse_list(text: str, what: str) -> list[str]:
    """Split ``a,b,c``; integer ranges ``0-4`` or ``0..4`` expand (inclusive)."""
    items: list[str] = []
    for part in (p.strip() for p in text.split(",")):
        if not part:
            continue
        m = re.fullmatch(r"(\d+)(?:-|\.\.)(\d+)", part)
        if m:
            lo, hi = int(m.group(1)), int(m.group(2))
            if hi < lo:
                raise SweepInputError(f"{what}: range {part!r} runs backwards")
            items.extend(str(i) for i in range(lo, hi + 1))
        else:
            items.append(part)
    if not items:
        raise SweepInputError(f"{what}: empty list")
    dup = sorted({i for i in items if items.count(i) > 1})
    if dup:
        raise SweepInputError(f"{what}: repeated entries {', '.join(dup)}")
    return items


def check_template(template: str) -> None:
    try:
        fields = {f for _, f, _, _ in string.Formatter().parse(template) if f is not None}
    except ValueError as exc:
        raise SweepInputError(f"--command: malformed template ({exc}); write literal braces as {{{{ and }}}}") from None
    unknown = sorted(f for f in fields if f not in PLACEHOLDERS)
    if unknown:
        raise SweepInputError(f"--command: unknown placeholder(s) {', '.join('{' + u + '}' for u in unknown)}; use {{value}}, {{seed}} and {{param}}")
    missing = [p for p in ("value", "seed") if p not in fields]
    if missing:
        raise SweepInputError(f"--command must contain {' and '.join('{' + m + '}' for m in missing)} so each run gets its own setting")


def plan(param: str, values: list[str], seeds: list[str], command: str | None) -> list[dict[str, str]]:
    """Every (seed, value) pair, seed-major, so a sweep cut short still holds complete paired seeds."""
    if len(values) < 2:
        raise SweepInputError("--values needs at least two values to compare")
    if len(seeds) < 2:
        raise SweepInputError("--seeds needs at least two seeds (three or more to say anything reliable)")
    if command is not None:
        check_template(command)
    out = []
    for seed in seeds:
        for value in values:
            row = {"seed": seed, "value": value, "param": param}
            if command is not None:
                row["command"] = command.format(value=shlex.quote(value), seed=shlex.quote(seed), param=param)
            out.append(row)
    return out
