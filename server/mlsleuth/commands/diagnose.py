"""``mlsleuth diagnose FILE:FUNCTION``: the cheap check battery on a model you can build in a function."""

from __future__ import annotations

import argparse
import sys

from mlsleuth.commands.common import add_output_options, add_selection_options

CONTRACT = """\
FUNCTION takes no arguments and returns a dict:
  model          nn.Module (required)
  batch | loader an (inputs, targets) tuple or a dict with inputs/targets keys | an iterable of such batches;
                 the inputs are fed as model(*inputs) when they are a tuple or list, model(**inputs) when
                 they are a dict (keyword inputs such as input_ids/attention_mask), else model(inputs)
  loss_fn        callable(outputs, targets) -> scalar loss      (or:)
  compute_loss   callable(model, batch) -> scalar loss, for anything unusual; or a dict of named
                 scalar terms ({"pde": ..., "boundary": ...}): the loss is their sum, and each term's
                 value, gradient norm and share are reported (stats loss_terms)
  optimizer      optional callable(params) -> torch.optim.Optimizer (default Adam, lr 1e-3)
  num_classes, task ('classification' | 'regression' | 'sequence'), time_dim: optional hints
The file is imported as a module (its `if __name__ == "__main__":` block does not run).
Python's, torch's and numpy's generators are seeded (--seed, default 0) before FUNCTION runs and
again before the overfit test, so the same code gets the same initial weights and the same verdict.
Overfit one batch passes when the loss falls below 10% of the chance-level loss (the loss of
predicting only the batch's label frequencies, or the mean target).
The model runs on the device its parameters are on (CPU unless the function moves it).

example:
  def setup():
      model = Net()
      x, y = torch.randn(64, 20), torch.randint(0, 5, (64,))
      return {"model": model, "batch": (x, y), "loss_fn": nn.CrossEntropyLoss(), "num_classes": 5}
"""


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser(
        "diagnose",
        help="run the cheap check battery (overfit one batch, gradient flow, ...) on a model from a setup function",
        description=(
            "Run the practitioners' cheap checks on the model, data and loss returned by FUNCTION in FILE: data sanity, "
            "initial loss, overfit one batch (with which of gradient flow / loss wiring / capacity is implicated when it fails), "
            "gradient flow, batch independence, causal leakage for sequence models, input ablation (real vs shuffled vs random "
            "inputs), evaluation determinism, initial weight statistics, unregistered submodules, and an optional LR range test."
        ),
        epilog=CONTRACT,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    p.add_argument("target", metavar="FILE:FUNCTION", help="the setup function, e.g. train.py:setup")
    p.add_argument("--steps", type=int, default=200, metavar="N", help="step budget of the overfit-one-batch test (default 200)")
    p.add_argument("--seed", type=int, default=0, metavar="N", help="seed of Python's, torch's and numpy's generators (default 0)")
    p.add_argument("--lr-range", action="store_true", help="also run a learning-rate range test (about 100 extra steps)")
    p.add_argument("--python", metavar="PATH", help="interpreter to use (default: a .venv/venv next to FILE, else this one)")
    p.add_argument("--timeout", type=float, default=300.0, metavar="S", help="kill the run after S seconds (default 300)")
    p.add_argument("--memory-limit", type=int, metavar="MB", help="cap the child's address space (CPU runs only)")
    add_selection_options(p)
    add_output_options(p)
    p.set_defaults(handler=run)


def run(args: argparse.Namespace) -> int:
    from mlsleuth.cli import UsageError
    from mlsleuth.commands.common import emit, run_with_progress, selection_from_args
    from mlsleuth.runtime.common import RuntimeInputError
    from mlsleuth.runtime.diagnose import prepare_diagnose

    selection = selection_from_args(args, tools=("trace", "diagnose"))
    try:
        prepared = prepare_diagnose(args.target, steps=args.steps, lr_range=args.lr_range, python=args.python,
                                    timeout_s=args.timeout, memory_limit_mb=args.memory_limit, selection=selection, seed=args.seed)
    except RuntimeInputError as exc:
        raise UsageError(str(exc)) from None
    if sys.stderr.isatty() and not args.quiet:
        print(f"mlsleuth: {prepared.description} with {prepared.info['interpreter']}", file=sys.stderr)
    return emit(run_with_progress(prepared, args), args)
