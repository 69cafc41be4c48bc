"""``# mlsleuth: ignore`` comments: which rules a line or a whole file switches off.

::

    loss = crit(probs, y)  # mlsleuth: ignore[softmax-into-logit-loss]
    loss = crit(probs, y)  # mlsleuth: ignore          (every rule on this line)
    # mlsleuth: ignore-file[rule-id]                   (anywhere: the whole file)
"""

from __future__ import annotations

import re

SUPPRESS = re.compile(r"#\s*mlsleuth:\s*(ignore-file|ignore)\b(?:\[([^\]]*)\])?")
ALL = "*"


def read_suppressions(source: str) -> tuple[dict[int, set[str]], set[str]]:
    """(line -> rule ids ignored there, rule ids ignored file-wide); ``*`` means all."""
    per_line: dict[int, set[str]] = {}
    per_file: set[str] = set()
    if "mlsleuth:" not in source:
        return per_line, per_file
    for lineno, line in enumerate(source.splitlines(), 1):
        for m in SUPPRESS.finditer(line):
            ids = {part.strip() for part in (m.group(2) or "").split(",") if part.strip()} or {ALL}
            (per_file if m.group(1) == "ignore-file" else per_line.setdefault(lineno, set())).update(ids)
    return per_line, per_file
