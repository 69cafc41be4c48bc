"""Read a symptom written in free text ("loss stuck at 2.3", "NaN after 300 steps") as catalog categories.

Each :class:`Reading` names the categories (``mlsleuth.report.CATEGORIES``) whose bugs typically cause the
symptom, most likely first, and the rule or check ids that name it most directly. The words are matched
case-insensitively; a text that matches nothing is said to be unrecognised, never guessed at.
"""

from __future__ import annotations

import re
from dataclasses import dataclass


@dataclass(frozen=True)
class Reading:
    name: str
    categories: tuple[str, ...]
    rules: tuple[str, ...] = ()


_READINGS: tuple[tuple[str, Reading], ...] = (
    (r"\bnan\b|\binf\b|infinit|non-?finite|diverg|explod|blow(s|n)? up|overflow",
     Reading("loss goes non-finite or explodes", ("numerical", "hyperparameter", "loss", "data"),
             ("non-finite-loss", "input-non-finite", "log-of-near-zero", "exp-near-overflow", "update-ratio-too-large",
              "std-division-without-eps", "naive-softmax-exp", "log-of-softmax", "fp16-autocast-without-grad-scaler"))),
    (r"stuck|flat|plateau|not (decreas|improv|learn|go(ing)? down|chang)|doesn'?t (learn|decreas|improv|go down|change)|"
     r"won'?t (learn|decreas)|no progress|(at|near) chance|random guess|constant (loss|output|prediction)|"
     r"same (loss|output|prediction)|\b2\.30?\b|\b0\.69\b|ln ?\(?\d+|does not (learn|decreas|improv)|never (learn|improv)",
     Reading("loss stuck or not learning", ("loss", "training-loop", "architecture", "data", "hyperparameter"),
             ("softmax-into-logit-loss", "softmax-into-cross-entropy", "sigmoid-into-bce-with-logits", "softmax-into-nll-loss",
              "nll-loss-on-logits", "loss-at-label-prior", "loss-not-decreasing", "missing-zero-grad", "zero-grad-missing",
              "step-before-backward", "step-without-backward", "zero-grad-between-backward-and-step", "zero-grad-before-step",
              "optimizer-misses-parameters", "param-not-in-optimizer", "modules-in-plain-container", "unregistered-submodule",
              "param-not-updated", "grad-all-zero", "update-ratio-too-small", "param-no-grad", "frozen-parameters"))),
    (r"\bval(id(ation)?)?\b|\btest\b|\beval(uation)?\b|held[- ]out|generali[sz]|overfit|train(ing)? (acc|loss).{0,40}(better|higher|lower)|"
     r"gap between|(higher|lower|worse|better) than (train|val|test)|leak",
     Reading("evaluation differs from training", ("evaluation", "data", "architecture"),
             ("eval-without-eval-mode", "eval-in-train-mode", "functional-dropout-always-on", "functional-dropout-in-eval",
              "eval-nondeterministic", "causal-leakage"))),
    (r"resum|checkpoint|restart|reload|after load|state.?dict|pretrained weights",
     Reading("changes after resuming or loading a checkpoint", ("reproducibility", "training-loop", "distributed"),
             ("checkpoint-without-scheduler-state", "best-state-dict-by-reference", "load-state-dict-strict-false-ignored",
              "state-dict-load-matched-nothing", "wrapped-state-dict-loaded-loosely", "restored-state-is-live-weights",
              "resume-without-scheduler-state"))),
    (r"reproduc|determinis|\bseed|different (result|each|every)|vary|varies|run.to.run",
     Reading("results do not reproduce", ("reproducibility", "environment", "distributed"))),
    (r"\bddp\b|distributed|multi.?gpu|\brank\b|world.?size|accelerate|fsdp|deepspeed",
     Reading("goes wrong only distributed", ("distributed", "reproducibility"))),
    (r"\boom\b|out of memory|\bcuda\b|\bgpu\b|fp16|bf16|half precision|mixed precision|\bamp\b|slow|memory",
     Reading("hardware, precision or memory", ("environment", "numerical"))),
    (r"noisy|oscillat|unstable|spik|jump|erratic|fluctuat",
     Reading("loss noisy or unstable", ("hyperparameter", "numerical", "training-loop"),
             ("update-ratio-too-large", "grad-accumulation-unscaled", "grad-accumulation-loss-not-scaled", "lr-collapse"))),
    (r"acc(uracy)?|worse|bad (result|score)|low (score|metric)|underperform|f1|bleu|auc",
     Reading("metric lower than expected", ("data", "evaluation", "loss", "architecture"))),
)


def read_symptom(text: str | None) -> list[Reading]:
    """The readings the text matches, in table order (empty for no text or no match)."""
    if not text or not text.strip():
        return []
    low = text.lower()
    return [reading for pattern, reading in _READINGS if re.search(pattern, low)]


def relevance(readings: list[Reading], rule_ids: tuple[str, ...], category: str) -> int:
    """2 when a reading names one of the clue's ids, 1 when its category fits a reading, else 0."""
    if any(rid in r.rules for r in readings for rid in rule_ids):
        return 2
    return 1 if any(category in r.categories for r in readings) else 0
