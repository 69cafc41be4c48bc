"""Every numeric threshold used by trace and diagnose, in one place, with its reason.

The RuleDocs in :mod:`mlsleuth.runtime.checks` quote these; they come from the
practitioners' rules of thumb (seeds 001, 002, 004), never from fixtures.
"""

# update-to-parameter ratio ||dW|| / ||W|| per step: ~1e-3 is the classic healthy
# value (Karpathy's CS231n notes); two orders of magnitude either way is a problem.
UPDATE_RATIO_HEALTHY = 1e-3
UPDATE_RATIO_LOW = 1e-5
UPDATE_RATIO_HIGH = 1e-1

# a ReLU unit that is zero for every sample of every traced batch receives no
# gradient and cannot recover; losing half of a layer is a capacity problem.
DEAD_RELU_FRACTION = 0.5

# tanh |y| > 0.99 / sigmoid y < 0.01 or > 0.99: local derivative below ~0.02.
SATURATED_FRACTION = 0.5

# initial loss: a freshly initialised classifier predicts near-uniformly, so the
# loss starts at ln C. Flag when it is more than twice that AND at least one nat above.
INITIAL_LOSS_FACTOR = 2.0
INITIAL_LOSS_MARGIN_NATS = 1.0
# ... and it is info, not a warning, when the median of the last RECOVERY_LAST_VALUES traced loss values is
# already back below ln C (a bad start the run recovers from within the traced steps).
RECOVERY_LAST_VALUES = 3

# gradient RMS of the first weight layer relative to the last: below 1e-3 the
# first layer learns about a thousand times more slowly under SGD.
VANISHING_GRAD_RATIO = 1e-3

# learning-rate collapse: the final LR is a thousandth of the largest LR seen.
LR_COLLAPSE_FACTOR = 1e-3

# loss-at-label-prior: after the traced steps the cross-entropy must be at least this
# fraction below the entropy of the labels seen (the score of predicting class frequencies).
LABEL_PRIOR_MARGIN = 0.03

# a loss still at the label prior when the requested steps end is watched for more steps
# (twice the requested number, at most this many) before the verdict: slow starts leave it.
VERDICT_EXTRA_STEPS_FACTOR = 2
VERDICT_EXTRA_STEPS_MAX = 100

# after the traced steps the script runs on, unobserved, for at most this many seconds (and at most 40% of the
# time left before the timeout), so what it does once training is over is seen: a checkpoint loaded back, the best
# state restored, a resumed job's scheduler (runtime/child/after_window.py). 0 turns it off.
AFTER_WINDOW_S = 20.0

# restored-state-is-live-weights: at least this share of the tensors given to load_state_dict are the model's own.
CHECKPOINT_LIVE_SHARE = 0.5

# eval-inputs-near-training-inputs: an evaluation row is a near-copy when its nearest training row is closer than
# SPLIT_NEAR_COPY_DISTANCE x the median distance between two training rows (and not identical); flagged when at
# least SPLIT_NEAR_COPY_SHARE of the evaluated rows are.
SPLIT_NEAR_COPY_DISTANCE = 0.1
SPLIT_NEAR_COPY_SHARE = 0.3

# loss-not-decreasing needs at least this many losses to compare thirds.
MIN_STEPS_FOR_TREND = 9

# reinforcement learning (trace, checks_rl): a target network (an untrained model with the trained one's
# parameter shapes) unchanged over at least RL_TARGET_MIN_STEPS optimizer steps while its trained twin moved at
# least RL_TARGET_DRIFT (relative distance) away is never synchronised; an unchanged target is watched up to
# RL_TARGET_WATCH_STEPS steps beyond the requested ones (a sync period longer than the trace).
RL_TARGET_MIN_STEPS = 100
RL_TARGET_DRIFT = 0.01
RL_TARGET_WATCH_STEPS = 300
# ... and the target ran forward on at least this share of those steps (an evaluation snapshot of the model does not).
RL_TARGET_FORWARD_SHARE = 0.5
# policy-gradient weights (the constants multiplying log-probabilities): one sign on at least RL_PG_ONE_SIGN of
# them and a mean at least RL_PG_MEAN_OVER_STD standard deviations from 0, on every one of at least
# RL_PG_MIN_UPDATES updates, with no trained baseline or critic term anywhere in the run.
RL_PG_ONE_SIGN = 0.99
RL_PG_MEAN_OVER_STD = 1.0
RL_PG_MIN_UPDATES = 3
# policy entropy (normalised: 1 uniform, 0 deterministic) falling from at least RL_ENTROPY_START to below
# RL_ENTROPY_FLOOR within the traced steps; a Normal policy's mean log-std falling by RL_LOG_STD_DROP (10x).
RL_ENTROPY_START = 0.5
RL_ENTROPY_FLOOR = 0.1
RL_LOG_STD_DROP = 2.3
# Q values: diverging once |Q| exceeds what any return can reach with gamma = 0.999 (RL_Q_HORIZON x the largest
# |reward| seen), or turns non-finite.
RL_Q_HORIZON = 1000.0
# rewards: a mean |reward| per environment step above this swamps a value loss (squared errors ~ its square).
RL_REWARD_SCALE_MAX = 100.0
# episode returns rising: the mean return of the last third of the episodes above the first third's by this factor.
RL_RETURNS_RISE = 1.1
RL_MIN_EPISODES_FOR_TREND = 6

# inputs: features are expected near unit scale; 10x off is a missing normalisation.
INPUT_SCALE_LIMIT = 10.0
RAW_PIXEL_MAX = 255.0
RAW_PIXEL_MIN_MAX = 16.0  # an integral input topping out at >= 16 is a count/pixel, not a one-hot

# class balance: info when one class holds at least this share of the labels seen.
MAJORITY_CLASS_SHARE = 0.9

# output-size mismatch: fewer than half the output classes appear among at least
# LABELS_PER_CLASS * C labels.
LABELS_PER_CLASS = 10

# overfit one batch (diagnose): the loss must fall below this fraction of the
# chance-level loss (the user's loss for a model that predicts only the batch's
# label frequencies, or the mean target) within the step budget; a fixed fraction
# of the initial loss would sit on the chance floor whenever the initial loss is
# far above it (a 3-class problem starting at 22 "passes" at 1.1 ~ ln 3).
OVERFIT_CHANCE_FRACTION = 0.1
# ... or below this fraction of the initial loss when no chance level can be
# computed (compute_loss setups, outputs that fit no known layout);
OVERFIT_TARGET_FRACTION = 0.05
# ... or classify every sample of the batch right with the loss below this
# fraction of the same reference (label smoothing keeps the loss off zero).
OVERFIT_ACCURACY_FRACTION = 0.5

# input ablation (diagnose): training on real inputs must end at least this much
# lower (relative) than training on random inputs of the same shape and scale.
ABLATION_MIN_GAIN = 0.1

# optimizer rebuilt per step: needs a few steps to tell "every step" from a one-off
# rebuild (a second training stage replaces the optimizer once, legitimately).
REBUILT_OPTIMIZER_MIN_STEPS = 4
REBUILT_OPTIMIZER_FRACTION = 0.75
# ... or rebuilt over the very same parameters at one fixed interval, at least this many times.
REBUILT_OPTIMIZER_MIN_REPLACEMENTS = 3

# batches of a single class: flagged when at least this share of the training batches hold one class
# while, for batches drawn at random from the label frequencies seen, at most BATCH_SINGLE_CLASS_CHANCE would.
BATCH_SINGLE_CLASS_SHARE = 0.5
BATCH_SINGLE_CLASS_CHANCE = 0.05
BATCH_SINGLE_CLASS_MIN_BATCHES = 8

# low-precision weights: the share of elements with a non-zero gradient that an optimizer step left
# bit-identical (the update rounded away), on parameters holding at least this share of the weights.
LOST_UPDATE_FRACTION = 0.5
LOST_UPDATE_WEIGHT_SHARE = 0.25

# gradient accumulation: the accumulated gradient of k micro-batches against the first one's. A mean over
# micro-batches stays near 1x (below, when they disagree); a plain sum lands between sqrt(k)x and kx.
# Flagged above the midpoint (1 + sqrt(k)) / 2, on the median over the traced steps.
ACCUMULATION_MIN_STEPS = 3
# loss divided twice (by hand and again by accelerator.backward): the scale reaching backward is within this
# factor of 1/k**2 (k micro-batches per step), against 1/k for a plain average.
ACCUMULATION_DOUBLE_TOLERANCE = 1.5

# mixed precision: GradScaler skipping optimizer.step() on inf/NaN gradients. A few skips at the start are how
# the scale is calibrated; flagged when at least AMP_SKIPPED_MIN steps and AMP_SKIPPED_FRACTION of all attempts were skipped.
AMP_SKIPPED_MIN = 5
AMP_SKIPPED_FRACTION = 0.5

# numerics early warning: log of values below tiny ** LOG_TINY_POWER (1e-30 for float32) is one
# underflow away from log(0) = -inf; exp of inputs above EXP_NEAR_OVERFLOW x ln(dtype max) (80 for
# float32) is a factor ~e^9 from overflow, which a sum over a few thousand such terms reaches.
LOG_TINY_POWER = 0.8
EXP_NEAR_OVERFLOW = 0.9

# padding counted in the loss: right padding (a trailing run of one id in most rows) covering at least this
# share of the token batch, and that id holding at least this share of the loss's class-index targets.
PADDING_FRACTION = 0.2
PADDING_TARGET_SHARE = 0.2

# cross-rank checks (multi-process runs): per-parameter sums of values or gradients that data-parallel
# training keeps identical on every rank count as different when they differ by more than this relative
# amount (all-reduce hands every rank the same bits; the slack covers a reduction order that differs).
RANK_SUM_RTOL = 1e-5
# gradients summed across ranks (ddp-grads-summed-not-averaged): at an update, the per-parameter gradient sums the
# ranks stepped on are fitted as ratio x the mean of the ranks' local gradient sums; summed when the ratio is within
# this relative amount of the world size and the fit leaves less than GRAD_SUM_RESIDUAL of the stepped gradient
# unexplained (an exact sum in float32 leaves about 1e-7; clipping or momentum folded in leave far more). The
# mean must keep at least GRAD_SUM_MIN_MEAN_SHARE of the largest local gradient (ranks whose gradients cancel
# say nothing about the ratio).
GRAD_SUM_RATIO_RTOL = 0.01
GRAD_SUM_RESIDUAL = 1e-3
GRAD_SUM_MIN_MEAN_SHARE = 0.05
# physics-informed networks (runtime/trace/checks_pinn.py). Loss terms: flagged when, on the first sampled
# steps, the largest term is at least this many times the smallest both in value and in gradient norm with
# respect to the parameters (four orders of magnitude: a classic well-posed problem starts one to three
# orders apart and trains; past four, the small term's share of the update is lost in the large one's).
PINN_TERM_RATIO = 1e4
# collocation coordinates beyond this magnitude, or a coordinate that spans less than PINN_COORD_MIN_SPAN
# over its whole range: far from the unit scale the network's initialisation and activations assume.
PINN_COORD_MAX = 100.0
PINN_COORD_MIN_SPAN = 1e-2
# the residual's points (the widest derivative site) span less than this share of the region every model
# input spans (boundary and initial points included): part of the domain has no residual at all.
PINN_COLLOCATION_COVERAGE = 0.5
# a derivative call site is part of the training step when it ran before a backward in at least this share
# of the steps that had one (an evaluation of the residual every few hundred steps is not).
PINN_TRAINING_SITE_FRACTION = 0.5
# language-model batches (labels vs input_ids): a batch's scored labels match the next position's token at least
# LM_SHIFT_MATCH of the time and their own position's token at most LM_SHIFT_MISMATCH of the time (or the other way
# round), over positions where the two tokens differ; random or real text matches either far less often.
LM_SHIFT_MATCH = 0.8
LM_SHIFT_MISMATCH = 0.2
LM_SHIFT_BATCHES = 0.5  # share of the measured batches that must show the pattern
# pad positions (attention_mask 0) whose label is not -100: at least this share of the scored labels, and more
# than one per row on average (one deliberately kept end-of-text label per row is a known, legitimate recipe).
LM_PAD_LABEL_SHARE = 0.05
# training steps with the model in eval mode: flagged when at least this many of the traced steps backpropagated
# through a trained model whose dropout / batch-norm was in eval mode, and they are at least this share of the
# steps from the first such step on (a model left in eval mode stays there; one stray pass is not a pattern).
TRAIN_IN_EVAL_MIN_STEPS = 3
TRAIN_IN_EVAL_SHARE = 0.5
# param-not-updated: a parameter whose gradient's root-mean-square is below this share of the median parameter's is
# not expected to move under plain SGD (a bias feeding batch-norm gets ~1e-9 against ~1e-2 elsewhere).
NEGLIGIBLE_GRAD_SHARE = 1e-4
# loop order: gradient clipping flagged as after the step when at least this many clip calls (after the first step)
# came with no backward since the last optimizer step, and they are at least half of the clip calls; backward passes
# never stepped: a finished script that built an optimizer and ran at least this many backward passes without a step.
CLIP_AFTER_STEP_MIN_CALLS = 3
NEVER_STEPPED_MIN_BACKWARDS = 8
