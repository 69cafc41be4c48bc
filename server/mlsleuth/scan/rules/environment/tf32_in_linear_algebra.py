"""The ``tf32-in-linear-algebra`` rule: TF32 matmuls turned on where the code factorises or solves linear systems."""

from __future__ import annotations

import re

from mlsleuth.scan.analysis.context import FileContext
from mlsleuth.scan.analysis.tf32 import switches
from mlsleuth.scan.registry import Rule, register_rule

# numerical linear algebra whose inputs must be accurate: factorisations, solves, inverses, determinants
_LINALG = re.compile(r"\b(?:linalg\.)?(?:cholesky(?:_ex|_solve|_inverse)?|solve(?:_triangular)?|triangular_solve|inv(?:_ex)?|"
                     r"inverse|slogdet|logdet|eigh|eigvalsh|lstsq|pinv)\s*\(")
_TORCH_LINALG = re.compile(r"\btorch\.(?:linalg\.\w+|cholesky\w*|inverse|logdet|slogdet|triangular_solve)\s*\(|"
                           r"\bgpytorch\b|\bbotorch\b")
_GP_LIBRARIES = re.compile(r"^\s*(?:import|from)\s+(?:gpytorch|botorch)\b", re.MULTILINE)


@register_rule
class Tf32InLinearAlgebra(Rule):
    """TF32 matmuls are on where the code solves linear systems.

    What it finds: `torch.backends.cuda.matmul.allow_tf32 = True`, `torch.set_float32_matmul_precision("high"
    / "medium")` or `matmul.fp32_precision = "tf32"` in a file that calls torch's numerical linear algebra
    (`torch.linalg.cholesky`, `cholesky_solve`, `solve`, `inv`, `slogdet`, `eigh`, `lstsq`, ...), or in a
    package that uses GPyTorch/BoTorch (Gaussian processes: kernel matrices, Cholesky factors, marginal
    likelihoods). Turning TF32 on in an image or language model script without such algebra is not flagged.
    Why it matters: TF32 keeps 10 mantissa bits (about 1e-3 relative error) in every float32 matmul. Neural
    network training tolerates that; kernel matrices, Gram matrices and the products feeding a Cholesky or a
    solve do not: the matrix loses positive definiteness ("not positive-definite" errors, jitter creeping up),
    log-determinants and likelihood gradients come out noisy, and fitted hyperparameters differ from the CPU
    fit.
    How to confirm: run the fit once with `torch.backends.cuda.matmul.allow_tf32 = False` on the same GPU and
    compare the marginal likelihood and the fitted hyperparameters: they differ well beyond the noise.
    What to do instead: keep TF32 off around this code (`torch.backends.cuda.matmul.allow_tf32 = False`, or
    set it only in the script that trains the network), or run the linear algebra in float64.
    """

    id = "tf32-in-linear-algebra"
    category = "environment"
    severity = "warning"
    reach = "project"
    triggers = ("tf32", "float32_matmul_precision", "fp32_precision")

    def check(self, ctx: FileContext):
        ons = [s for s in switches(ctx) if s.kind in ("matmul", "all") and s.on]
        if not ons:
            return
        here = _TORCH_LINALG.search(ctx.source) and _LINALG.search(ctx.source)
        package = ctx.project is not None and ctx.project.package_matches(ctx, _GP_LIBRARIES)
        if not here and not (_GP_LIBRARIES.search(ctx.source) or package):
            return
        what = f"`{_LINALG.search(ctx.source).group(0).rstrip('( ')}`" if here else "GPyTorch/BoTorch models"  # type: ignore[union-attr]
        first = ons[0]
        yield self.finding(
            ctx,
            first.node,
            f"TF32 matmuls are turned on where the code does numerical linear algebra ({what}): kernel/Gram matrices "
            "and the products feeding factorisations and solves lose ~3 decimal digits, which makes likelihoods and "
            "their gradients noisy and can break positive definiteness",
            observation=ctx.segment(first.node, 100),
            next_test="Fit once with torch.backends.cuda.matmul.allow_tf32 = False on the same GPU and compare the loss "
                      "and the fitted parameters.",
        )
