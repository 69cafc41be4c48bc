"""Documentation of every ``trace`` and ``diagnose`` check (registered in the catalog).

Thresholds are quoted from :mod:`mlsleuth.runtime.thresholds`, so the text and
the code cannot disagree. Import-light: no torch here.
"""

from __future__ import annotations

from mlsleuth.catalog import parse_doc, register
from mlsleuth.runtime import thresholds as T

TRACE_CHECKS: dict[str, str] = {}
DIAGNOSE_CHECKS: dict[str, str] = {}


def _check(rule_id: str, tool: str, category: str, severity: str, doc: str) -> None:
    register(parse_doc(rule_id, tool, category, severity, doc))
    (TRACE_CHECKS if tool == "trace" else DIAGNOSE_CHECKS)[rule_id] = category


# -- trace: call sequence ---------------------------------------------------------
_check("zero-grad-missing", "trace", "training-loop", "error", """
Gradients accumulate across optimizer steps.

What it finds: at the first backward() of an optimizer step, parameters still hold the non-zero gradients of
the previous step. Measured at runtime, so it also catches zero_grad() called on the wrong object (another
model or optimizer) and is not fooled by deliberate accumulation over several backward passes per step.
Why it matters: each step then follows the sum of all past gradients, an ever-growing stale direction; training
looks unstable or diverges and nothing in the code looks wrong.
How to confirm: print one parameter's grad norm right before backward() on two consecutive steps; it should be
0 or None at the start of each step.
What to do instead: call optimizer.zero_grad() once per optimizer step, before backward() (or right after step()).
""")
_check("zero-grad-before-step", "trace", "training-loop", "error", """
zero_grad() runs between backward() and step().

What it finds: in the observed call order of a step, a zero_grad() comes after the last backward() and before
optimizer.step().
Why it matters: the optimizer steps with all-zero gradients, so the weights never move (Adam and SGD with weight
decay or momentum still drift, which hides the bug); the loss stays flat.
How to confirm: sum the absolute gradients just before optimizer.step(): it is 0.
What to do instead: order each step zero_grad, forward, backward, step.
""")
_check("step-without-backward", "trace", "training-loop", "warning", """
optimizer.step() without a backward() since the previous step.

What it finds: an optimizer step with no backward pass since the previous step (closures that call backward
inside step(), as LBFGS needs, count as a backward).
Why it matters: the step reuses stale gradients, or none; usually backward() sits in the wrong branch or loop.
How to confirm: count backward() and step() calls per loop iteration.
What to do instead: call loss.backward() before each step, or step only after the accumulated backward passes.
""")
_check("optimizer-rebuilt-each-step", "trace", "training-loop", "error", """
A new optimizer is built for every step.

What it finds: on most traced steps a different optimizer object steps the same parameters as the one before it,
and the optimizer keeps per-parameter state (momentum buffers, Adam's moment estimates).
Why it matters: every rebuild throws that state away. Adam then takes its first, bias-corrected step on every
batch, which behaves like sign descent at the full learning rate; SGD with momentum loses its momentum. The run
trains, but not with the algorithm configured.
How to confirm: print(id(optimizer)) inside the training loop: it changes on every iteration.
What to do instead: build the optimizer (and its scheduler) once, before the loop; rebuild it only when the set of
trained parameters changes, for a new training stage.
""")
_check("loss-target-broadcast", "trace", "loss", "error", """
A regression loss broadcasts its input against a target of another shape.

What it finds: F.mse_loss / l1_loss / smooth_l1_loss / huber_loss (or their nn modules) called with an input and a
target whose shapes differ and broadcast to a larger tensor, such as predictions of shape (N, 1) against targets
of shape (N,), which broadcast to (N, N).
Why it matters: the loss compares every prediction with every target, not each with its own. It still runs and
still decreases (towards predicting the batch mean), so the model looks as if it trains but cannot fit the
data. PyTorch prints a UserWarning once, easily lost in the log.
How to confirm: print(outputs.shape, targets.shape) right before the loss.
What to do instead: make the shapes equal: outputs.squeeze(-1), or targets.unsqueeze(-1) / targets.view_as(outputs).
""")
_check("scheduler-step-before-optimizer-step", "trace", "training-loop", "warning", """
The LR scheduler stepped before the first optimizer step.

What it finds: scheduler.step() observed before any optimizer.step() of the run.
Why it matters: since PyTorch 1.1 the schedule advances on scheduler.step(), so calling it first skips the first
value of the schedule (warmup starts late, step decays come one step early).
How to confirm: print scheduler.get_last_lr() before the first optimizer.step().
What to do instead: call scheduler.step() after optimizer.step().
""")
_check("lr-collapse", "trace", "hyperparameter", "warning", f"""
The learning rate collapses towards zero within the traced steps.

What it finds: for a parameter group of the primary optimizer, the learning rate at the end of the trace is at
most {T.LR_COLLAPSE_FACTOR:g} times the largest value seen (warmups that rise are not flagged).
Why it matters: a schedule that reaches ~0 within the first few dozen steps (a per-batch step with per-epoch
parameters, gamma too small, T_max in epochs instead of steps) freezes training while the loop keeps running.
How to confirm: print scheduler.get_last_lr() every step for one epoch.
What to do instead: step the scheduler at the cadence its parameters assume, or express step_size/T_max in steps.
""")

# -- trace: gradients and updates ---------------------------------------------------
_check("param-no-grad", "trace", "architecture", "warning", """
Parameters in the optimizer never receive a gradient.

What it finds: parameters with requires_grad=True that are in an optimizer but whose .grad stayed None at every
traced optimizer step; reported at the shallowest module whose parameters are all affected (e.g. 'encoder').
Why it matters: the module is disconnected from the loss - a .detach(), .item(), .data, torch.no_grad() or
numpy round trip cuts the graph, or the module is simply never used - so it stays at its initial weights.
How to confirm: after loss.backward(), list [n for n, p in model.named_parameters() if p.grad is None].
What to do instead: remove the graph cut on the path to the loss, or leave the unused module out.
""")
_check("grad-all-zero", "trace", "architecture", "warning", """
Gradients that are exactly zero on every step.

What it finds: parameters whose gradient exists but is all zeros at every traced step.
Why it matters: something upstream blocks the signal: dead ReLUs after the layer, a zero multiplier or mask, a
constant output, or a zero-initialised layer feeding only zero-initialised layers.
How to confirm: register a hook on the module's output tensor and print the incoming gradient norm.
What to do instead: fix what zeroes the signal (lower LR or LeakyReLU for dead units, random init, fix the mask).
""")
_check("param-not-updated", "trace", "training-loop", "warning", """
Parameters with gradients whose values never change.

What it finds: parameters with non-zero gradients that were bit-identical before and after every traced step.
Why it matters: the optimizer does not update them: their group has lr 0, or the optimizer holds other tensors
(copies made before .to(device), or a model rebuilt after the optimizer was created).
How to confirm: print(optimizer.param_groups) and compare p.clone() before and after optimizer.step().
What to do instead: give the group a non-zero LR; create the optimizer after the model is final and on its device.
""")
_check("update-ratio-too-small", "trace", "hyperparameter", "warning", f"""
Updates far too small relative to the weights.

What it finds: weight matrices whose median per-step update-to-parameter ratio ||dW|| / ||W|| is below
{T.UPDATE_RATIO_LOW:g}; the practitioners' rule of thumb for a healthy ratio is about {T.UPDATE_RATIO_HEALTHY:g}.
Why it matters: a hundred times below the healthy ratio the layer barely moves; the loss looks flat and the
run seems to "not learn" although the code is right: the learning rate is too small for this layer.
How to confirm: re-run a few steps with the LR 10x larger and compare the loss, or run an LR range test.
What to do instead: raise the learning rate towards the healthy ratio; check per-group LRs and LR schedules.
""")
_check("update-ratio-too-large", "trace", "hyperparameter", "warning", f"""
Updates too large relative to the weights.

What it finds: weight matrices whose median per-step ||dW|| / ||W|| exceeds {T.UPDATE_RATIO_HIGH:g}, a hundred
times the healthy ~{T.UPDATE_RATIO_HEALTHY:g}.
Why it matters: each step rewrites a tenth of the layer; training oscillates, diverges, or kills ReLUs.
How to confirm: re-run with the LR 10x smaller; the loss curve should become smoother and reach lower values.
What to do instead: lower the learning rate, add warmup, or clip gradients.
""")
_check("vanishing-gradients", "trace", "architecture", "warning", f"""
Gradients shrink from the last layer to the first.

What it finds: the median gradient RMS of the first weight layer is below {T.VANISHING_GRAD_RATIO:g} times that
of the last weight layer (at least three weight layers).
Why it matters: with plain SGD the first layers learn about that many times more slowly; deep stacks of
saturating activations or poor init cause it.
How to confirm: print each layer's gradient norm after one backward and find where it drops.
What to do instead: ReLU/GELU, normalisation layers, residual connections, Kaiming/Xavier init.
""")
_check("dead-relu", "trace", "architecture", "warning", f"""
Most units of a ReLU are dead.

What it finds: an nn.ReLU module where at least {int(100 * T.DEAD_RELU_FRACTION)}% of output positions are zero
for every sample of every traced training batch (functional F.relu calls are not seen).
Why it matters: a dead unit passes no gradient, so it cannot recover; the layer loses that share of its
capacity. Typical causes: a large negative bias, a too-high learning rate, unnormalised inputs.
How to confirm: print((h > 0).float().mean(0)) for the layer's output over a batch.
What to do instead: lower the LR, zero the biases with Kaiming init, normalise inputs, or use LeakyReLU/GELU.
""")
_check("activation-saturation", "trace", "architecture", "warning", f"""
Tanh/sigmoid activations are saturated.

What it finds: an nn.Tanh/nn.Sigmoid module where on average at least {int(100 * T.SATURATED_FRACTION)}% of the
outputs lie beyond |tanh| > 0.99 or outside sigmoid [0.01, 0.99], where the derivative is below about 0.02.
Why it matters: saturated units pass almost no gradient; learning stalls in and below this layer.
How to confirm: histogram the pre-activations; values beyond about +-3 are saturated.
What to do instead: normalise inputs, lower the init scale, add normalisation before the activation.
""")

# -- trace: loss ------------------------------------------------------------------------
_check("softmax-into-cross-entropy", "trace", "loss", "error", """
Cross-entropy is fed probabilities instead of logits.

What it finds: every inspected call of F.cross_entropy / nn.CrossEntropyLoss received rows that are
non-negative and sum to 1 - the output of a softmax (also reported by diagnose).
Why it matters: cross_entropy applies log-softmax itself; a second softmax squeezes the inputs into [0, 1], so
the loss can never approach 0, gradients flatten and training stalls around a high loss.
How to confirm: print(outputs.sum(1)[:5]) before the loss: all ones.
What to do instead: return raw logits from the model; apply softmax only for predictions.
""")
_check("nll-loss-on-logits", "trace", "loss", "error", """
NLL loss fed something other than log-probabilities.

What it finds: F.nll_loss / nn.NLLLoss inputs whose logsumexp over classes is not 0 on every inspected call.
Why it matters: nll_loss just picks -input[target]; on raw logits it rewards making the target logit large
without normalisation, so the loss runs to minus infinity or learns nothing useful.
How to confirm: print(torch.logsumexp(outputs, 1)[:5]) - log-probabilities give 0.
What to do instead: apply log_softmax first, or use cross_entropy on logits.
""")
_check("sigmoid-into-bce-with-logits", "trace", "loss", "warning", """
BCE-with-logits fed values that already went through a sigmoid.

What it finds: every inspected input of F.binary_cross_entropy_with_logits / nn.BCEWithLogitsLoss lies in [0, 1].
Why it matters: the loss applies its own sigmoid, so predictions are squeezed into [0.5, 0.73]; gradients are
tiny and the model cannot become confident.
How to confirm: print(outputs.min(), outputs.max()) before the loss and look for a trailing sigmoid.
What to do instead: drop the sigmoid from the model when using BCEWithLogitsLoss.
""")
_check("label-out-of-range", "trace", "data", "error", """
Labels outside the range the loss accepts.

What it finds: class-index targets below 0 or at least the number of classes of the loss input (ignore_index
excluded), or binary cross-entropy targets outside [0, 1] (also reported by diagnose).
Why it matters: on CPU this raises an IndexError; on GPU it is a device-side assert or silent garbage; either way
the output layer size and the label encoding disagree (1-based labels, a wrong num_classes).
How to confirm: print(targets.min(), targets.max(), outputs.shape) for one batch.
What to do instead: size the final layer to the number of classes and map labels to 0..C-1.
""")
_check("initial-loss-high", "trace", "loss", "warning", f"""
The loss at initialisation is far above ln C.

What it finds: the first cross-entropy (C classes) or binary cross-entropy value is more than
{T.INITIAL_LOSS_FACTOR:g} times ln C (ln 2 for binary) and at least {T.INITIAL_LOSS_MARGIN_NATS:g} nat above it
(also reported by diagnose).
Why it matters: a freshly initialised classifier predicts near-uniformly, so its loss starts at ln C (2.30 for 10
classes). Much higher means confident wrong predictions from the start: unnormalised inputs, a bad init scale,
or a loss/label mismatch; the first steps are then spent undoing the init.
How to confirm: print the logits' std for the first batch; rescale the final layer by 0.01 and compare.
What to do instead: normalise inputs, use default init, initialise the final layer small.
""")
_check("non-finite-loss", "trace", "numerical", "error", """
The loss became NaN or Inf.

What it finds: the first traced step whose loss (the tensor passed to backward) is not finite; the trace stops there.
Why it matters: one non-finite loss corrupts every parameter it reaches in the next update.
How to confirm: run `mlsleuth nan SCRIPT` to localise the step, module and op where the first non-finite value appears.
What to do instead: fix the producing op (log of 0, division by ~0, exp overflow, too-high LR); do not mask it
with nan_to_num or skip the batch.
""")
_check("loss-not-decreasing", "trace", "training-loop", "warning", f"""
The training loss does not go down over the traced steps.

What it finds: with at least {T.MIN_STEPS_FOR_TREND} traced steps, the mean loss over the last third of the steps
is not below the mean over the first third.
Why it matters: a healthy setup lowers the loss within a few dozen steps; a flat loss points to a blocked
pipeline: LR far too small, disconnected or frozen weights, labels unrelated to their inputs, or a broken loss.
How to confirm: the overfit-one-batch test (`mlsleuth diagnose FILE:FUNCTION`).
What to do instead: act on the other findings first; then check label/input alignment and the learning rate.
""")

_check("loss-at-label-prior", "trace", "data", "warning", f"""
Cross-entropy stuck at the entropy of the labels.

What it finds: over the last third of at least {T.MIN_STEPS_FOR_TREND} traced steps, the mean cross-entropy is not
at least {int(100 * T.LABEL_PRIOR_MARGIN)}% below the entropy of the class labels seen during the trace.
Why it matters: predicting the class frequencies alone scores exactly that entropy, with no look at the inputs.
A model that cannot beat it has learned nothing from its inputs: labels shuffled apart from their inputs, inputs
that carry no signal, or blocked learning. The loss may still go down a little (learning the frequencies), so
"the loss decreases" does not rule this out. Very hard tasks can need more steps than the trace runs.
How to confirm: overfit one fixed batch and compare training on real, shuffled and random inputs
(`mlsleuth diagnose FILE:FUNCTION`); print a few input/label pairs after the data pipeline.
What to do instead: keep inputs and labels aligned through every shuffle, augmentation and sort.
""")

# -- trace: data ---------------------------------------------------------------------------
_check("input-non-finite", "trace", "data", "error", """
The input batch contains NaN or Inf.

What it finds: NaN or Inf values in the first training batch fed to the model (also reported by diagnose).
Why it matters: they propagate into every gradient and the weights within one step.
How to confirm: torch.isfinite(x).all() over the dataset, then find the offending samples/features.
What to do instead: clean or impute the data; use nan-aware statistics for normalisation.
""")
_check("input-unnormalized", "trace", "data", "warning", f"""
Unnormalised inputs.

What it finds: a floating-point first batch holding integer values in 0..255 with a maximum of at least
{T.RAW_PIXEL_MIN_MAX:g} (raw pixels or counts), or with |mean| or std above {T.INPUT_SCALE_LIMIT:g}
(also reported by diagnose). Integer-typed inputs such as token ids are not flagged.
Why it matters: default initialisations assume unit-scale inputs; at 255x scale the first layer saturates or
produces huge logits, the initial loss is high and training is slow or unstable.
How to confirm: print(x.min(), x.max(), x.mean(), x.std()); compare a few steps with x / 255.
What to do instead: scale to [0, 1] and standardise with the training set's statistics.
""")
_check("constant-input-features", "trace", "data", "info", """
Constant input features.

What it finds: features with zero variance across the first training batch (2-D inputs, at least 8 samples).
Why it matters: they carry no information; many at once suggest a broken column or a bad normalisation.
How to confirm: compute per-feature std over the whole training set.
What to do instead: drop them or fix the pipeline step that flattens them.
""")
_check("class-imbalance", "trace", "data", "info", f"""
One class dominates the labels.

What it finds: one class holds at least {int(100 * T.MAJORITY_CLASS_SHARE)}% of the class labels seen over the traced batches.
Why it matters: accuracy is misleading and the model can score well by predicting that class only.
How to confirm: a class histogram over the full training set and a majority-class baseline.
What to do instead: class weights, a balanced sampler, per-class metrics.
""")
_check("output-size-mismatch", "trace", "data", "warning", f"""
The output layer has many more classes than the labels use.

What it finds: over at least {T.LABELS_PER_CLASS} x C labels, fewer than half of the C output classes ever appear.
Why it matters: the final layer was sized for another dataset or num_classes is wrong; probability mass leaks
to classes that never occur and the initial loss is higher than it should be.
How to confirm: compare len(dataset.classes) with the final layer's out_features.
What to do instead: size the final layer to the real number of classes.
""")

# -- trace: evaluation ------------------------------------------------------------------------
_check("eval-in-train-mode", "trace", "evaluation", "warning", """
An evaluation pass runs in training mode.

What it finds: a forward under torch.no_grad()/inference_mode of a model still in training mode that contains
active dropout or batch-norm layers.
Why it matters: dropout stays on (noisy, pessimistic metrics) and batch-norm normalises with, and updates its
running statistics from, the evaluation batches: validation numbers are wrong and training state drifts.
How to confirm: evaluate the same batch twice; outputs differ. Then call model.eval() and compare the metric.
What to do instead: model.eval() before evaluation, model.train() before training resumes.
""")
_check("functional-dropout-in-eval", "trace", "evaluation", "error", """
Functional dropout active during evaluation.

What it finds: F.dropout (or its 1d/2d/3d/alpha variants) called with training=True inside a module that is in
eval mode, or inside a no-grad pass.
Why it matters: F.dropout defaults to training=True and ignores model.eval(), so evaluation stays random and
pessimistic while every mode switch looks right.
How to confirm: with model.eval(), run the same batch twice: outputs differ.
What to do instead: use an nn.Dropout submodule, or pass training=self.training.
""")
_check("eval-nondeterministic", "trace", "evaluation", "warning", """
Evaluation outputs change between two passes over the same batch.

What it finds: the first no-grad forward of a model in eval mode is repeated on the same inputs (random-number
state preserved, so the user's run is unaffected) and the outputs differ (also reported by diagnose).
Why it matters: something random or stateful is active at evaluation time, so metrics are noisy and checkpoints
cannot be compared.
How to confirm: model.eval(); a = model(x); b = model(x); bisect the submodule whose output differs.
What to do instead: route randomness through modules that respect eval(); do not update state in eval forwards.
""")

# -- trace: structure -------------------------------------------------------------------------
_check("batch-mixing", "trace", "architecture", "error", """
Samples mix across the batch.

What it finds: on a captured training batch, with the model in eval mode (so batch-norm cannot legitimately mix
samples), the gradient of output i with respect to the inputs of other samples is not exactly zero. Module
outputs are checked the same way to localise where the mixing happens (also reported by diagnose). Skipped for
integer inputs and sequence-first layers.
Why it matters: a view/reshape/transpose over the batch dimension silently scrambles samples: the model trains
on garbage pairs and the loss still goes down a little.
How to confirm: x.requires_grad_(); model.eval(); model(x)[0].sum().backward(); only x.grad[0] may be non-zero.
What to do instead: flatten with x.flatten(1) or x.reshape(x.size(0), -1); use permute, not view, to reorder axes.
""")
_check("frozen-parameters", "trace", "training-loop", "info", """
Frozen parameters in a trained model.

What it finds: parameters with requires_grad=False in a model whose other parameters are being optimised.
Why it matters: intended when fine-tuning; otherwise a layer silently never trains (a leftover freeze loop, or
requires_grad switched off while debugging).
How to confirm: list [n for n, p in model.named_parameters() if not p.requires_grad].
What to do instead: set requires_grad=True on the layers meant to train.
""")
_check("param-not-in-optimizer", "trace", "training-loop", "error", """
Trainable parameters missing from every optimizer.

What it finds: parameters with requires_grad=True in a model that is being optimised, but absent from all
optimizers' param_groups.
Why it matters: they get gradients but never change; usually the optimizer was built before a layer was added
or replaced, or from a list of selected sub-modules.
How to confirm: compare the ids of optimizer parameters with the ids of model.parameters().
What to do instead: build the optimizer from model.parameters() after the model is final.
""")
_check("symmetric-weights", "trace", "architecture", "warning", """
A layer's units stay identical after training steps.

What it finds: a weight matrix with at least two output units whose rows are all identical (often all zero)
after the traced optimizer steps (diagnose reports the same at initialisation as symmetric-init).
Why it matters: identical units receive identical gradients, so symmetry is never broken and the layer acts as
one unit; a classic "loss stuck at ln C" cause, worse with a high learning rate.
How to confirm: print(w.std(dim=0)) at initialisation: all zeros.
What to do instead: random init (Kaiming/Xavier) for hidden layers; zero init only for a final layer or biases.
""")


# -- diagnose --------------------------------------------------------------------------------
_check("overfit-one-batch", "diagnose", "training-loop", "error", f"""
Overfit one batch.

What it finds: trains the user's model with the user's optimizer on one fixed batch until the loss falls below
{int(100 * T.OVERFIT_TARGET_FRACTION)}% of its initial value (or every sample of the batch is classified right), within the
step budget. Success is recorded in the report's summary stats (steps needed, loss curve); failure is an error
naming what is implicated: loss
wiring (the loss does not depend on the output, or receives probabilities/logits of the wrong kind), gradient
flow (a quarter or more of the trainable tensors get no or zero gradient), numerics (non-finite loss), or else
capacity or learning rate.
Why it matters: a correct model, loss and optimizer can always memorise one small batch; if they cannot,
no amount of data or training time will help and the bug is in the wiring, not in the hyperparameters.
How to confirm: the measurements hold the loss curve; repeat with --lr-range to rule out the learning rate.
What to do instead: fix the implicated part first, then scale to a few batches and the full loop.
""")
_check("causal-leakage", "diagnose", "architecture", "error", """
The model sees the future.

What it finds: for sequence models (task 'sequence' or a time_dim hint), the gradient of the output at the middle
time step with respect to inputs at later time steps (through the embedding output for token inputs), in eval
mode; it must be exactly zero for an autoregressive/causal model.
Why it matters: a missing causal mask or a shifting mistake lets the model copy the answer during training; the
training loss looks excellent and generation is garbage.
How to confirm: change only the last input step and check whether earlier outputs move.
What to do instead: apply a causal attention mask (is_causal=True or a square subsequent mask) and shift targets by one.
""")
_check("input-ignored", "diagnose", "data", "warning", f"""
The model does not use its inputs.

What it finds: from the same initial weights and for the same number of steps on one batch, training with the real
inputs does not end at least {int(100 * T.ABLATION_MIN_GAIN)}% lower in loss than training with inputs shuffled
against their labels (re-shuffled every step) or with random inputs of the same mean and std (re-drawn every step).
Why it matters: with shuffled or random inputs the model can only learn the label frequencies; if real inputs do
no better, the input path is cut (a variable overwritten, a detach, a zeroed projection, the wrong argument).
How to confirm: feed two very different inputs and compare the outputs.
What to do instead: follow the input through forward() and fix where its signal is lost.
""")
_check("symmetric-init", "diagnose", "architecture", "warning", """
Hidden layer initialised with identical (often zero) rows.

What it finds: weight matrices, other than the model's final weight layer, whose output rows are all identical at
initialisation (all-zero or constant init).
Why it matters: identical units get identical gradients, so they stay identical: the layer works as a single unit.
A zero-initialised final layer is a known-safe trick and is not flagged.
How to confirm: print(w.std(dim=0)) right after constructing the model.
What to do instead: keep PyTorch's default init or use Kaiming/Xavier for hidden layers.
""")
_check("unregistered-submodule", "diagnose", "architecture", "error", """
Layers hidden in a plain list, tuple or dict.

What it finds: module attributes that are Python lists/tuples/dicts holding nn.Module objects (or tensors with
requires_grad) whose parameters are not among model.parameters().
Why it matters: those layers are skipped by the optimizer, .to(device), .train()/.eval() and state_dict(): they never
train, may stay on the CPU, and are lost when the checkpoint is reloaded.
How to confirm: compare sum(p.numel() for p in model.parameters()) with the parameter count you expect.
What to do instead: use nn.ModuleList, nn.ModuleDict or nn.Parameter.
""")
_check("lr-range-suggestion", "diagnose", "hyperparameter", "info", """
Learning-rate range test.

What it finds: (with --lr-range) increases the learning rate exponentially from 1e-7 to 10 over 100 steps from the
initial weights, smooths the loss with an exponential moving average and stops when it exceeds four times its
minimum; suggests the smaller of the steepest-descent LR and a tenth of the LR at the minimum.
Why it matters: a learning rate off by a factor of ten or more explains most "it trains but badly" runs; the test
costs about a hundred steps.
How to confirm: train a few hundred steps at the suggested LR and at 3x either side.
What to do instead: use the suggestion as the peak LR of the schedule (with warmup for large models).
""")
