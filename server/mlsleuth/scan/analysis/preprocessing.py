"""Fitted preprocessing objects (scalers, encoders, PCA...): what the data-leakage rules ask about.

:func:`transformer_name` names a receiver that is an sklearn transformer (built from one of
:data:`TRANSFORMER_MODULES`, a pipeline, or a name made of :data:`TRANSFORMER_WORDS` in a file
that imports sklearn).
"""

from __future__ import annotations

import ast

from mlsleuth.scan.analysis import value_origins
from mlsleuth.scan.analysis.context import FileContext

# sklearn families whose `fit` learns statistics from the data it sees.
TRANSFORMER_MODULES = (
    "sklearn.preprocessing",
    "sklearn.decomposition",
    "sklearn.impute",
    "sklearn.feature_extraction",
    "sklearn.feature_selection",
    "sklearn.random_projection",
    "sklearn.kernel_approximation",
    "sklearn.cross_decomposition",
)

TRANSFORMER_WORDS = {
    "scaler", "encoder", "imputer", "normalizer", "pca", "vectorizer", "tfidf", "standardizer",
    "binarizer", "discretizer", "selector", "svd", "transformer", "preprocessor", "featurizer",
}


def transformer_name(ctx: FileContext, receiver: ast.AST) -> str | None:
    """A name for ``receiver`` when it is a fitted preprocessing object (scaler, encoder, PCA...)."""
    bound = receiver if isinstance(receiver, ast.Call) else value_origins.value(ctx, receiver)
    if isinstance(bound, ast.Call):
        qual = ctx.qualname(bound) or ""
        if qual.startswith(TRANSFORMER_MODULES):
            return qual.rsplit(".", 1)[-1]
        if qual.startswith(("sklearn.pipeline.", "sklearn.compose.")):
            return qual.rsplit(".", 1)[-1]
        return None  # built by something else (a model, a factory function): do not guess from its name
    name = value_origins.root_name(receiver)
    if name is not None and TRANSFORMER_WORDS & set(value_origins.words(name)) and ctx.imports_any("sklearn"):
        return name
    return None
