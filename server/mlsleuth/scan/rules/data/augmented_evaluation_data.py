"""The ``augmented-evaluation-data`` rule: validation or test data that goes through the random training augmentation."""

from __future__ import annotations

import ast
import re

from mlsleuth.scan.analysis import subsets as ds
from mlsleuth.scan.analysis import value_origins as vo
from mlsleuth.scan.analysis.context import FileContext, dotted
from mlsleuth.scan.analysis.transforms import augmenting
from mlsleuth.scan.registry import Rule, register_rule

_EVAL_WORDS = frozenset({"val", "valid", "validation", "test", "eval", "evaluation", "dev", "holdout"})
_TRAIN_WORD = re.compile(r"train", re.IGNORECASE)


@register_rule
class AugmentedEvaluationData(Rule):
    """Validation or test data that goes through the random training augmentation.

    What it finds: a validation/test transform that is the training pipeline itself
    (`val_transform = train_transform`, `self.test_tf = self.train_tf`), where the training one is a
    `Compose` with random steps, built here or returned by a helper of the project. A validation
    transform built as its own deterministic `Compose` is not flagged. Also a validation/test split
    (`random_split(full, ...)`, `Subset(full, val_idx)`) of the very dataset object that was built with
    the augmenting transform for training: a subset keeps a reference to its dataset, so it reads the
    same transform. Not flagged: a held-out subset whose `.dataset` is replaced afterwards, and a dataset
    built for several augmented views of each item (`views=2`, a two-crop wrapper: contrastive or
    consistency objectives augment validation on purpose).
    Why it matters: evaluation should measure the model on fixed inputs. With random crops, flips or
    RandAugment on the validation set, the metric changes from one evaluation to the next for the same
    weights, is biased by the augmentation, and early stopping or checkpoint selection follow the noise.
    How to confirm: evaluate the same checkpoint twice on the validation set: the numbers differ.
    What to do instead: build the validation/test data with a deterministic transform (resize, center
    crop, to-tensor, normalise), e.g. a second dataset object over the same files with the evaluation
    transform, indexed by the same split indices.
    """

    id = "augmented-evaluation-data"
    category = "data"
    severity = "warning"
    reach = "project"
    # the augmenting pipeline may be built by a helper of another module: only the alias must be here
    triggers = ("train", "random_split", "Subset")
    requires = (("val", "test", "Val", "Test", "eval"),)

    def check(self, ctx: FileContext):
        yield from self._aliases(ctx)
        yield from self._held_out_subsets(ctx)

    def _held_out_subsets(self, ctx: FileContext):
        reported: set[int] = set()
        for held_out in ds.subsets(ctx):
            if held_out.role != "eval" or id(held_out.made_by) in reported:
                continue
            trains = [s for s in ds.siblings(ctx, held_out) if s.role == "train"]
            dataset = ds.dataset_call(ctx, held_out)
            tf = ds.transform_argument(dataset) if dataset is not None else None
            if not trains or tf is None or _multi_view(dataset) or not augmenting(ctx, tf):  # type: ignore[arg-type]
                continue
            if ds.later_assignments(ctx, held_out, "dataset") or ds.later_assignments(ctx, held_out, "dataset.transform"):
                continue  # its dataset (or the shared transform) is replaced afterwards: another story
            reported.add(id(held_out.made_by))
            one_call = trains[0].made_by is held_out.made_by
            # one random_split makes both: the fix is a second dataset, where this one is built
            anchor = dataset if one_call and dataset is not None and dataset.lineno < held_out.made_by.lineno else held_out.made_by
            yield self.finding(
                ctx,
                anchor,
                f"`{held_out.name}` is a subset of `{dotted(held_out.base)}`, the dataset built with the random training "
                f"augmentation `{ctx.segment(tf, 60)}` (line {dataset.lineno}) that `{trains[0].name}` trains on: "  # type: ignore[union-attr]
                "a subset shares its dataset's transform, so evaluation sees randomly augmented inputs",
                next_test=f"Evaluate the same checkpoint twice on `{held_out.name}`: the numbers differ.",
            )

    def _aliases(self, ctx: FileContext):
        for node in ctx.nodes_of(ast.Assign):
            targets = node.targets  # type: ignore[attr-defined]
            value = node.value  # type: ignore[attr-defined]
            if len(targets) != 1:
                continue
            target = targets[0]
            names = target.elts if isinstance(target, (ast.Tuple, ast.List)) else [target]
            evals = [dotted(n) for n in names if _evaluation_name(dotted(n))]
            if not evals:
                continue
            if isinstance(value, (ast.Name, ast.Attribute)) and _TRAIN_WORD.search(dotted(value) or "") and augmenting(ctx, value):
                yield self.finding(
                    ctx,
                    node,
                    f"`{evals[0]}` is the training pipeline `{dotted(value)}`, with its random augmentation: validation "
                    "metrics change from one evaluation to the next for the same weights",
                    next_test="Evaluate the same checkpoint twice: the validation numbers differ.",
                )


def _evaluation_name(name: str | None) -> bool:
    return bool(name) and bool(_EVAL_WORDS & set(vo.words(name.rsplit(".", 1)[-1])))  # type: ignore[union-attr]


_MULTI_VIEW = ("view", "TwoCrop", "MultiCrop", "Contrastive")


def _multi_view(dataset: ast.Call) -> bool:
    """A dataset built for several augmented views per item (contrastive/consistency objectives)."""
    if any(kw.arg and "view" in kw.arg.lower() for kw in dataset.keywords):
        return True
    names = [dotted(n.func) or "" for n in ast.walk(dataset) if isinstance(n, ast.Call)]
    return any(part.lower() in name.lower() for name in names for part in _MULTI_VIEW)
