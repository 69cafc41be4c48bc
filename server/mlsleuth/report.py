"""The one report schema every mlsleuth tool returns.

A :class:`Report` holds :class:`Finding` objects (clues) and :class:`ErrorEntry`
objects (things the tool could not do, such as a file it could not parse).
Its JSON form (``Report.model_dump(mode="json")``) is the contract shared by
the CLI, the MCP server and every capability; change it only by adding
optional fields.

Observation and inference are kept apart: ``observation`` says what was
seen (numbers, code), ``message`` says what it probably means, and
``next_test`` names the cheapest way to confirm it.
"""

from __future__ import annotations

from collections import Counter
from typing import Any, Literal, get_args

from pydantic import BaseModel, ConfigDict, Field

from mlsleuth import __version__

Severity = Literal["error", "warning", "info"]
SEVERITIES: tuple[str, ...] = get_args(Severity)
SEVERITY_RANK = {"error": 0, "warning": 1, "info": 2}

# The practitioners' order of suspicion, most likely first.
Category = Literal[
    "data",
    "loss",
    "training-loop",
    "evaluation",
    "architecture",
    "hyperparameter",
    "numerical",
    "reproducibility",
    "distributed",
    "environment",
]
CATEGORIES: tuple[str, ...] = get_args(Category)

# Where in a training step a runtime finding was made.
Phase = Literal["setup", "data", "forward", "loss", "backward", "optimizer", "evaluation"]


class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid")


class Location(_Strict):
    """Where a finding points: source coordinates, runtime coordinates, or both."""

    path: str | None = Field(default=None, description="File path, relative to the scanned root when possible.")
    line: int | None = Field(default=None, ge=1, description="1-based line (within the cell for notebooks).")
    column: int | None = Field(default=None, ge=1, description="1-based column.")
    end_line: int | None = Field(default=None, ge=1)
    end_column: int | None = Field(default=None, ge=1)
    cell: int | None = Field(default=None, ge=1, description="1-based notebook cell number (.ipynb only).")
    function: str | None = Field(default=None, description="Enclosing function or Class.method.")
    module: str | None = Field(default=None, description="Runtime: dotted module path inside the model, e.g. 'encoder.layers.3'.")
    parameter: str | None = Field(default=None, description="Runtime: parameter name, e.g. 'encoder.layers.3.weight'.")
    step: int | None = Field(default=None, ge=0, description="Runtime: 0-based optimizer step.")
    phase: Phase | None = Field(default=None, description="Runtime: the part of the step where it was seen.")
    op: str | None = Field(default=None, description="Runtime: the operation, e.g. 'aten::exp'.")

    def source_label(self) -> str:
        """``path:line:col`` (or ``path:cell N:line``) for text output; empty if no path."""
        if not self.path:
            return ""
        parts = [self.path]
        if self.cell is not None:
            parts.append(f"cell {self.cell}")
        if self.line is not None:
            parts.append(str(self.line))
            if self.column is not None:
                parts.append(str(self.column))
        return ":".join(parts)

    def runtime_label(self) -> str:
        """``step 3, forward, module 'enc.0', op aten::exp`` for text output."""
        bits: list[str] = []
        if self.step is not None:
            bits.append(f"step {self.step}")
        if self.phase is not None:
            bits.append(self.phase)
        if self.module is not None:
            bits.append(f"module '{self.module}'")
        if self.parameter is not None:
            bits.append(f"parameter '{self.parameter}'")
        if self.op is not None:
            bits.append(f"op {self.op}")
        return ", ".join(bits)


class Finding(_Strict):
    """One clue."""

    id: str = Field(default="", description="Unique within the report (assigned by Report.finalize).")
    rule: str = Field(pattern=r"^[a-z0-9]+(?:-[a-z0-9]+)*$", description="Stable kebab-case rule or check id.")
    category: Category
    severity: Severity
    message: str = Field(min_length=1, description="What the observation probably means (the inference).")
    location: Location = Field(default_factory=Location)
    observation: str = Field(default="", description="What was seen: the code or the numbers, without interpretation.")
    measurements: dict[str, Any] = Field(default_factory=dict, description="Numbers behind the observation, machine-readable.")
    next_test: str = Field(default="", description="The cheapest test that would confirm or refute the inference.")
    fix: str | None = Field(default=None, description="What to do instead, once confirmed.")

    def sort_key(self) -> tuple:
        loc = self.location
        return (
            loc.path or "",
            loc.cell or 0,
            loc.line or 0,
            loc.column or 0,
            loc.step if loc.step is not None else -1,
            SEVERITY_RANK[self.severity],
            self.rule,
        )


# Error kinds meaning the tool could not run the user's code to the end: the environment (no torch, a
# bad interpreter), the setup function, or the code itself raised, exited, crashed, ran out of memory,
# timed out, trained nothing, or was cancelled. A report holding one exits 3, not 1 ("bugs found").
RUN_FAILURE_KINDS = frozenset({
    "environment", "harness-error", "setup-error", "user-exception", "user-exit", "crash", "no-result",
    "out-of-memory", "timeout", "no-steps", "cancelled",
})


class ErrorEntry(_Strict):
    """Something the tool could not do. The rest of the work still happened."""

    kind: str = Field(description="Short machine-readable kind, e.g. 'syntax-error', 'not-found', 'timeout'.")
    message: str = Field(min_length=1, description="What went wrong and what to do about it.")
    path: str | None = None
    detail: str | None = Field(default=None, description="A traceback or captured output, truncated.")


class Summary(_Strict):
    text: str = ""
    counts: dict[str, int] = Field(default_factory=dict, description="Findings per severity.")
    categories: dict[str, int] = Field(default_factory=dict, description="Findings per category.")
    stats: dict[str, Any] = Field(default_factory=dict, description="Tool-specific numbers: files scanned, steps run, seconds.")


class Report(_Strict):
    tool: str
    version: str = __version__
    findings: list[Finding] = Field(default_factory=list)
    errors: list[ErrorEntry] = Field(default_factory=list)
    summary: Summary = Field(default_factory=Summary)
    truncated: bool = Field(default=False, description="True when findings were cut to a limit; see summary.stats.")

    def finalize(self, *, text: str | None = None, stats: dict[str, Any] | None = None, sort: bool = True) -> Report:
        """Sort findings, give each a unique id and fill the summary. Returns self."""
        if sort:
            self.findings.sort(key=Finding.sort_key)
        for n, finding in enumerate(self.findings, 1):
            finding.id = f"F{n}"
        counts = Counter(f.severity for f in self.findings)
        self.summary.counts = {sev: counts.get(sev, 0) for sev in SEVERITIES}
        self.summary.categories = dict(sorted(Counter(f.category for f in self.findings).items()))
        if stats:
            self.summary.stats.update(stats)
        self.summary.text = text if text is not None else self.default_text()
        return self

    def default_text(self) -> str:
        n = len(self.findings)
        if n == 0:
            head = "no findings"
        else:
            by_sev = ", ".join(f"{c} {s}" for s, c in self.summary.counts.items() if c)
            head = f"{n} finding{'s' if n != 1 else ''} ({by_sev})"
        if self.errors:
            head += f"; {len(self.errors)} error{'s' if len(self.errors) != 1 else ''}"
        return head

    def limit(self, max_findings: int, offset: int = 0) -> Report:
        """A copy holding one page of findings, with ``truncated`` set when more exist."""
        if max_findings < 1 or offset < 0:
            raise ValueError("max_findings must be >= 1 and offset >= 0")
        page = self.findings[offset : offset + max_findings]
        more = offset + max_findings < len(self.findings)
        copy = self.model_copy(deep=True)
        copy.findings = [f.model_copy(deep=True) for f in page]
        copy.truncated = more or self.truncated
        copy.summary.stats = {
            **copy.summary.stats,
            "total_findings": len(self.findings),
            "offset": offset,
            "returned": len(page),
        }
        if more:
            copy.summary.stats["next_offset"] = offset + max_findings
        return copy

    def exit_code(self) -> int:
        """0 nothing to report, 1 findings or errors, 3 the user's code could not be run (see RUN_FAILURE_KINDS).

        3 wins over 1: findings from the steps before a failure cover only part of the run.
        """
        if any(e.kind in RUN_FAILURE_KINDS for e in self.errors):
            return 3
        return 1 if (self.findings or self.errors) else 0


def json_schema() -> dict[str, Any]:
    """The JSON Schema of a report, for clients that validate."""
    return Report.model_json_schema()
