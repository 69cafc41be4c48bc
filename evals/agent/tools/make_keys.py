"""Regenerates answer_key.json for every case from the metadata below.

Root-cause line ranges are located by a marker string in the project file (so they stay right
when a project is edited), and lines_total is counted from the project's text files.
Run from anywhere: python evals/agent/tools/make_keys.py
"""
from __future__ import annotations

import json
from pathlib import Path

CASES_DIR = Path(__file__).resolve().parent.parent / "cases"
TEXT_SUFFIXES = {".py", ".yaml", ".yml", ".md", ".json", ".txt", ".cfg", ".toml"}


def case(**fields) -> dict:
    return fields


def R(file, pattern, side="any"):
    return {"file": file, "pattern": pattern, "side": side}


CASES = [
    case(
        id="charlm-causal-mask", title="Char-level GPT: causal mask built with triu lets every position see the future",
        inspired_by_url="https://github.com/jadore801120/attention-is-all-you-need-pytorch/issues/19",
        also_see=["https://github.com/karpathy/minGPT/issues/75", "https://github.com/pytorch/tutorials/pull/2662"],
        category="causal attention mask", multi_file=True, misleading_symptom=True,
        file="charlm/model.py", marker="mask = torch.triu(", before=0, after=1,
        explanation="The attention mask is built with torch.triu instead of torch.tril. Positions where the mask is 0 "
                    "are filled with -inf, so each query attends to itself and all later tokens: the model reads the "
                    "token it must predict, train and val loss collapse to ~0.04, and generation (where the future is "
                    "not available) produces garbage. Not overfitting: dropout or more data cannot help.",
        keywords=[["triu", "upper triang", "upper-triang", "future token", "future position", "attends to future",
                   "look ahead", "look-ahead", "lookahead", "causal mask", "causal masking"]],
        fix_description="Build the mask with torch.tril (or use scaled_dot_product_attention(is_causal=True)).",
        must_change=[R("charlm/model.py", r"torch\.triu\(torch\.ones\(block_size, block_size\)\)", "removed")],
        must_not_change=["charlm/data.py", "charlm/config.py", "charlm/utils.py", "train.py"],
        check_metric="max_logit_change_from_future_tokens",
    ),
    case(
        id="textcls-padding-pool", title="Transformer classifier: mean pooling over padded positions",
        inspired_by_url="https://github.com/huggingface/transformers/issues/17463",
        also_see=["https://github.com/jsboige/CoursIA/issues/15045",
                  "https://github.com/huggingface/sentence-transformers/issues/230"],
        category="masking/padding", multi_file=True, misleading_symptom=True,
        file="textcls/model.py", marker="pooled = self.norm(h).mean(dim=1)", before=2, after=0,
        explanation="The encoder masks padding keys, but the pooled sentence vector is h.mean(dim=1) over all T "
                    "positions, padding included. The number of pad positions depends on the longest review in the "
                    "batch, so the same review gets a different vector and probability alone vs. in a batch. Not "
                    "kernel nondeterminism or dropout.",
        keywords=[["pad", "padding"], ["mean", "pool", "average"]],
        fix_description="Masked mean: sum the token vectors where ~pad_mask and divide by the true lengths.",
        must_change=[R("textcls/model.py", r"\.mean\(dim=1\)", "removed"),
                     R("textcls/model.py", r"mask|length", "added")],
        must_not_change=["textcls/data.py", "textcls/engine.py", "train.py", "evaluate.py"],
        check_metric="max_prob_change_single_vs_batched",
    ),
    case(
        id="churn-oversample-leak", title="Tabular churn model: minority oversampling before the train/val split",
        inspired_by_url="https://bitsfolio.com/smote-data-leakage-validation-set/",
        also_see=["https://machinelearningaptitude.com/topics/machine-learning/what-are-the-drawbacks-of-oversampling-minority-class-in-imbalanced-class-problem-of-machine-learning/"],
        category="data leakage/splits", multi_file=True, misleading_symptom=True,
        file="churn/data.py", marker="table = oversample_minority(table", before=2, after=3,
        explanation="build_splits oversamples the churners (duplicating rows) on the full table and only then splits "
                    "into train/val. Copies of the same customer land in both splits (hundreds of shared rows), and "
                    "the validation set is artificially balanced, so val F1 (~0.9) is inflated; a fresh month scores "
                    "~0.35. Not distribution drift.",
        keywords=[["oversampl", "over-sampl", "resampl", "duplicat"], ["split", "leak", "validation", "val "]],
        fix_description="Split first, then oversample only the training table (validation keeps the natural class balance).",
        must_change=[R("churn/data.py", r"table = oversample_minority\(table", "removed")],
        must_not_change=["churn/simulate.py", "churn/model.py", "churn/features.py", "churn/metrics.py",
                         "score_month.py", "train.py"],
        check_metric="val_f1_minus_fresh_month_f1",
    ),
    case(
        id="resume-scheduler-state", title="Checkpoint resume restores model and optimizer but not the LR scheduler",
        inspired_by_url="https://github.com/PolymathicAI/the_well/pull/63",
        also_see=["https://github.com/PolymathicAI/the_well/issues/77", "https://github.com/D-X-Y/NAS-Bench-201/issues/19",
                  "https://github.com/lightly-ai/lightly-train/pull/301"],
        category="checkpoint resume", multi_file=True, misleading_symptom=True,
        file="surrogate/checkpoint.py", marker="def load_checkpoint(", before=0, after=5,
        explanation="save_checkpoint stores scheduler.state_dict(), but load_checkpoint never calls "
                    "scheduler.load_state_dict. The resumed LambdaLR starts again at step 0: warmup restarts and the "
                    "LR jumps back to the peak (3e-3 instead of ~8e-4), which causes the loss spike. Data order/RNG is "
                    "not the cause.",
        keywords=[["scheduler", "lambdalr"],
                  ["load_state_dict", "not restored", "not loaded", "never loaded", "isn't loaded", "is not loaded",
                   "doesn't load", "does not load", "never restored", "isn't restored"]],
        fix_description="Call scheduler.load_state_dict(state['scheduler']) when resuming.",
        must_change=[R(None, r"scheduler\.load_state_dict\(", "added")],
        must_not_change=["surrogate/model.py", "surrogate/data.py", "surrogate/schedule.py", "surrogate/config.py"],
        check_metric="max_relative_lr_mismatch_after_resume",
    ),
    case(
        id="amp-clip-scaled-grads", title="AMP: gradients clipped while still multiplied by the GradScaler scale",
        inspired_by_url="https://github.com/Lightning-AI/pytorch-lightning/issues/9599",
        also_see=["https://github.com/pytorch/examples/issues/1196", "https://github.com/victorchall/EveryDream2trainer/pull/175"],
        category="mixed precision", multi_file=True, misleading_symptom=True,
        file="waveclf/engine.py", marker="scaler.scale(loss).backward()", before=0, after=5,
        explanation="With AMP the backward pass produces gradients multiplied by the loss scale (65536). "
                    "clip_grad_norm_(max_norm=1.0) runs on these scaled gradients, so it shrinks them by ~1e4-1e5; "
                    "scaler.step then divides by the scale again and SGD takes steps ~1e-5 of the intended size. "
                    "Needs scaler.unscale_(optimizer) before clipping. Not fp16/bf16 precision loss.",
        keywords=[["unscale", "scaled grad", "scale factor", "loss scale", "scaled gradient"], ["clip"]],
        fix_description="Call scaler.unscale_(optimizer) after backward and before clip_grad_norm_.",
        must_change=[R("waveclf/engine.py", r"unscale_\(", "added")],
        must_not_change=["waveclf/model.py", "waveclf/data.py", "waveclf/config.py", "configs/base.yaml", "train.py"],
        check_metric="amp_val_acc_after_2_epochs",
    ),
    case(
        id="focal-loss-nan", title="Focal loss: log(sigmoid) underflows to log(0) and 0 * -inf gives NaN",
        inspired_by_url="https://github.com/xingyizhou/CenterNet/pull/121",
        also_see=["https://github.com/gnn-tracking/gnn_tracking/issues/138", "https://github.com/mkocabas/focal-loss-keras/issues/17"],
        category="numerics (log of 0)", multi_file=True, misleading_symptom=True,
        file="tagger/losses.py", marker="p = torch.sigmoid(logits)", before=0, after=1,
        explanation="The loss takes torch.log(p) and torch.log(1 - p) of p = sigmoid(logits). Once the model is "
                    "confident (logit > ~17 in float32), sigmoid rounds to exactly 1, log(1 - p) = -inf, and the "
                    "(1 - targets) * -inf term is 0 * -inf = NaN. A lower LR only delays it; clipping cannot help "
                    "because the NaN is produced in the forward pass.",
        keywords=[["torch.log", "log(p", "log(1 - p", "log(1-p", "log of", "logarithm", "logsigmoid", "with_logits"],
                  ["-inf", " inf", "underflow", "saturat", "rounds to", "exactly 1", "exactly 0", "log(0", "log of 0",
                   "log of zero"]],
        fix_description="Compute the CE term from logits (F.binary_cross_entropy_with_logits / F.logsigmoid), or clamp p.",
        must_change=[R("tagger/losses.py", r"torch\.log\(p\)|torch\.log\(1 - p\)", "removed")],
        must_not_change=["tagger/model.py", "tagger/data.py", "tagger/metrics.py", "tagger/config.py", "train.py"],
        check_metric="finite_steps_of_1500",
    ),
    case(
        id="softmax-into-ce", title="Softmax layer in the model feeding nn.CrossEntropyLoss",
        inspired_by_url="https://github.com/ariecattan/SciCo/issues/2",
        also_see=["https://github.com/NaJaeMin92/pytorch-DANN/issues/7", "https://github.com/illiterate/BertClassifier/issues/2"],
        category="loss/activation mismatch", multi_file=False, misleading_symptom=True,
        file="train_classifier.py", marker="nn.Softmax(dim=1)", before=0, after=0,
        explanation="The network ends in nn.Softmax and its probabilities are fed to nn.CrossEntropyLoss, which applies "
                    "log_softmax itself. Inputs in [0, 1] bound the loss below by -log(e/(e+4)) = 0.905 for 5 classes, "
                    "gradients shrink, and the output probabilities can never be confident. Not the LR or model size.",
        keywords=[["softmax"], ["crossentropy", "cross_entropy", "cross-entropy", "cross entropy", "log_softmax",
                                "logits"]],
        fix_description="Remove the final nn.Softmax and return logits (apply softmax only when probabilities are needed).",
        must_change=[R("train_classifier.py", r"nn\.Softmax\(dim=1\)", "removed")],
        must_not_change=[],
        check_metric="final_train_loss",
    ),
    case(
        id="zero-grad-order", title="optimizer.zero_grad() between backward() and step()",
        inspired_by_url="https://github.com/patrickloeber/pytorchTutorial/issues/19",
        also_see=["https://github.com/rll/deepul/issues/12"],
        category="optimizer/scheduler/zero_grad ordering", multi_file=False, misleading_symptom=True,
        file="train.py", marker="            loss.backward()\n            optimizer.zero_grad()", before=0, after=2,
        explanation="zero_grad() is called after loss.backward() and before optimizer.step(), so every step sees "
                    "zero gradients and the weights never change (loss identical to 5 decimals across epochs). Not "
                    "saturation, init or LR.",
        keywords=[["zero_grad", "zero grad", "zeroing"], ["step", "backward", "order"]],
        fix_description="Call optimizer.zero_grad() before loss.backward() (or after optimizer.step()).",
        must_change=[R("train.py", r"zero_grad\(\)|\.backward\(\)|optimizer\.step\(\)", "any")],
        must_not_change=[],
        check_metric="final_val_mse",
    ),
    case(
        id="mse-target-broadcast", title="MSELoss between (B, 1) predictions and (B,) targets broadcasts to (B, B)",
        inspired_by_url="https://github.com/deepset-ai/FARM/issues/229",
        also_see=[],
        category="label/target shape broadcasting", multi_file=False, misleading_symptom=True,
        file="fit_prices.py", marker="loss = criterion(model(xb), yb)", before=0, after=0,
        explanation="model(xb) has shape (64, 1) and yb has shape (64,); MSELoss broadcasts them to (64, 64) and "
                    "compares every prediction with every target, whose minimiser is the batch mean. The model "
                    "learns a near-constant price (R^2 ~0.1). The broadcasting UserWarning is hidden by "
                    "warnings.filterwarnings('ignore'). Not depth, epochs or LR.",
        keywords=[["broadcast", "squeeze", "(b, 1)", "[b, 1]", "(64, 1)", "(64, 64)", "target size",
                   "shape mismatch", "mismatched shape"]],
        fix_description="Make prediction and target the same shape: criterion(model(xb).squeeze(1), yb) (or unsqueeze the target).",
        must_change=[R("fit_prices.py", r"squeeze|view\(|reshape|flatten|\[:, *None\]|\[:, *0\]", "added")],
        must_not_change=[],
        check_metric="val_r2",
    ),
    case(
        id="bn-eval-mode", title="Evaluation without model.eval(): BatchNorm uses per-batch statistics",
        inspired_by_url="https://github.com/wolny/pytorch-3dunet/issues/53",
        also_see=["https://github.com/ugent-korea/pytorch-unet-segmentation/issues/18",
                  "https://github.com/udacity/deep-learning-v2-pytorch/issues/3"],
        category="train/eval mode", multi_file=False, misleading_symptom=True,
        file="train_cnn.py", marker="def evaluate(model, loader):", before=0, after=7,
        explanation="evaluate() uses torch.no_grad() but never calls model.eval(), so BatchNorm normalises with the "
                    "statistics of the batch being scored (and updates its running stats) and dropout stays on. With "
                    "batches of 256 that is close to the population statistics; with one patch per batch it is "
                    "wrong, so single-patch accuracy collapses. Not a harder test set or overfitting.",
        keywords=[["eval()", "eval mode", "evaluation mode", "train mode", "training mode", "model.eval"],
                  ["batchnorm", "batch norm", "batch statistics", "batch-norm", "bn"]],
        fix_description="Call model.eval() at the start of evaluate() (train_epoch already calls model.train()).",
        must_change=[R("train_cnn.py", r"\.eval\(\)|\.train\(False\)", "added")],
        must_not_change=[],
        check_metric="test_acc_single_patch",
    ),
    case(
        id="ddp-sampler-set-epoch", title="DistributedSampler without set_epoch: same order every epoch",
        inspired_by_url="https://github.com/pytorch/pytorch/issues/31771",
        also_see=["https://github.com/lucidrains/DALLE-pytorch/pull/230", "https://github.com/kan-bayashi/ParallelWaveGAN/issues/177"],
        category="distributed sampler", multi_file=False, misleading_symptom=False,
        file="train_ddp.py", marker="    for epoch in range(args.epochs):", before=0, after=2,
        explanation="DistributedSampler seeds its shuffle with seed + epoch, and the epoch only changes through "
                    "sampler.set_epoch(epoch). The loop never calls it, so every epoch uses the permutation of epoch 0: "
                    "the same batches in the same order, hence the repeating loss pattern and weaker generalisation.",
        keywords=[["set_epoch"]],
        fix_description="Call sampler.set_epoch(epoch) at the start of every epoch, before iterating the loader.",
        must_change=[R("train_ddp.py", r"set_epoch\(", "added")],
        must_not_change=[],
        check_metric="distinct_epoch_orders_of_3",
    ),
    case(
        id="grad-accum-zero-grad", title="Gradient accumulation with zero_grad() on every micro-batch",
        inspired_by_url="https://github.com/wandb/senpai/pull/262",
        also_see=["https://github.com/ultralytics/yolov5/issues/1630"],
        category="gradient accumulation", multi_file=False, misleading_symptom=True,
        file="train.py", marker="            optimizer.zero_grad()\n            loss = F.binary", before=0, after=4,
        explanation="optimizer.zero_grad() runs at the top of every micro-batch, so when optimizer.step() fires every "
                    "accum_steps batches the gradient holds only the last micro-batch, divided by accum_steps: an "
                    "effective batch of 32 with 1/8 of the LR and 1/8 of the updates. Not LR scaling or floating-point "
                    "summation.",
        keywords=[["zero_grad", "zero grad", "zeroing", "reset"], ["accum", "micro"]],
        fix_description="Zero gradients only right after optimizer.step() (and once before the loop).",
        must_change=[R("train.py", r"zero_grad\(\)", "any")],
        must_not_change=[],
        check_metric="final_val_logloss",
    ),
    case(
        id="eval-missing-normalize", title="Evaluation transform skips the mean/std normalisation used in training",
        inspired_by_url="https://github.com/JeasunLok/ResNet-pytorch/issues/1",
        also_see=["https://github.com/mlpack/examples/pull/213", "https://github.com/nttcslab/byol-a/issues/5"],
        category="normalisation mismatch", multi_file=True, misleading_symptom=True,
        file="leafnet/transforms.py", marker="def build_transform(", before=0, after=3,
        explanation="build_transform adds Normalize(mean, std) only to the training pipeline; the validation (and "
                    "predict.py's test) pipeline is ToFloat alone. The model is trained on standardised inputs "
                    "(centred near 0, unit variance) and evaluated on raw [0, 1] inputs centred near 0.4, so "
                    "validation accuracy sits at chance while the training accuracy climbs. Not overfitting: "
                    "weight decay or fewer epochs cannot help.",
        keywords=[["normaliz", "normalis", "mean/std", "mean and std", "standardiz", "standardis"],
                  ["eval", "validation", "val ", "test"]],
        fix_description="Use Compose([ToFloat(), Normalize(mean, std)]) for non-training splits (flip stays train-only).",
        must_change=[R("leafnet/transforms.py", r"Normalize\(", "added")],
        must_not_change=["leafnet/synth.py", "leafnet/model.py", "leafnet/engine.py", "train.py",
                         "configs/default.yaml"],
        check_metric="val_acc",
    ),
    case(
        id="ema-bn-buffers", title="Weight EMA averages parameters only: the EMA copy keeps BatchNorm's initial running statistics",
        inspired_by_url="https://github.com/CuriousAI/mean-teacher/issues/9",
        also_see=["https://github.com/FlyreelAI/sesemi/issues/36", "https://github.com/pytorch/ignite/issues/2590",
                  "https://github.com/huggingface/pytorch-image-models/issues/245"],
        category="EMA/teacher weights", multi_file=True, misleading_symptom=True,
        file="harnet/ema.py", marker="    def update(self, model: nn.Module) -> None:", before=1, after=4,
        explanation="ModelEma.update averages only self.module.parameters(); BatchNorm's running_mean/running_var "
                    "are buffers, so the EMA copy (deep-copied before training) keeps mean 0 / var 1 forever. "
                    "Validation (and evaluate.py) use the EMA weights by default (eval_with_ema), and the inputs "
                    "are raw m/s^2 with gravity (~9.8 on z), so every BatchNorm in eval mode normalises with the "
                    "wrong statistics: val accuracy sits at chance and val loss grows as the weights grow. Not "
                    "overfitting: the live weights score ~100% on the same data, and dropout or weight decay "
                    "cannot help.",
        keywords=[["buffer", "running_mean", "running mean", "running_var", "running var", "running stat",
                   "bn stat", "batchnorm stat", "batch norm stat", "batch-norm stat", "batchnorm statistic"],
                  ["ema", "moving average", "shadow", "averaged"]],
        fix_description="Also copy (or average) the buffers into the EMA module on every update (e.g. iterate "
                        "state_dict() or add a loop over buffers()).",
        must_change=[R(None, r"buffers\(|named_buffers|state_dict\(", "added")],
        must_not_change=["harnet/model.py", "harnet/data.py", "harnet/transforms.py", "harnet/synth.py",
                         "configs/default.yaml", "train.py"],
        check_metric="val_acc_after_2_epochs",
    ),
    case(
        id="field-label-index", title="Field dataset subclass drops the training class list: class indices shift on a site missing a class",
        inspired_by_url="https://github.com/weecology/DeepForest/pull/1147",
        also_see=["https://github.com/ultralytics/ultralytics/issues/13936",
                  "https://github.com/huggingface/pytorch-image-models/issues/957"],
        category="class-index mapping train vs eval", multi_file=True, misleading_symptom=True,
        file="defectcls/datasets.py", marker="        super().__init__(records, transform=transform)", before=3,
        after=0,
        explanation="evaluate_field.py passes the checkpoint's classes to build_dataset, but the registered "
                    "'field' dataset (FieldDataset) calls super().__init__(records, transform=transform) without "
                    "classes, so the base class rebuilds the class list from the field records. Plant C has no "
                    "'dent', so its sorted classes are [crack, ok, scratch, stain] instead of [crack, dent, ok, "
                    "scratch, stain]: every label after 'crack' is shifted by one index and only cracks can score "
                    "(~26%). Plant A/B batches contain every class, so the same script scores ~90% there. Not "
                    "camera/domain shift.",
        keywords=[["fielddataset", "field dataset", "super().__init__", "subclass", "classes", "class list",
                   "class_to_idx", "label index", "label indices", "class index", "class indices"],
                  ["not forwarded", "isn't forwarded", "never forwarded", "doesn't forward", "does not forward",
                   "not passed", "never passed", "isn't passed", "dropped", "drops the classes", "drops classes",
                   "ignored", "ignores", "swallow", "discard", "off-by-one", "off by one", "shifted by one",
                   "shift by one", "rebuil", "recomput", "missing class", "no dent", "no 'dent'", "without dent",
                   "lacks dent", "dent is missing"]],
        fix_description="Forward classes in FieldDataset.__init__: super().__init__(records, classes=classes, "
                        "transform=transform).",
        must_change=[R("defectcls/datasets.py", r"classes", "added")],
        must_not_change=["defectcls/synth.py", "defectcls/model.py", "defectcls/transforms.py",
                         "defectcls/trainer.py", "train.py", "configs/default.yaml"],
        check_metric="plant_c_field_accuracy",
    ),
    case(
        id="cosine-tmax-epochs", title="Cosine schedule sized in epochs but stepped every batch: the LR oscillates",
        inspired_by_url="https://github.com/ivadomed/ivadomed/issues/57",
        also_see=["https://github.com/sthalles/SimCLR/issues/8", "https://github.com/skorch-dev/skorch/issues/610"],
        category="LR schedule length unit (epochs vs steps)", multi_file=True, misleading_symptom=True,
        file="loadcast/optim.py", marker="def cosine(optimizer, cfg, epochs: int):", before=0, after=20,
        explanation="build_scheduler gives the cosine schedule T_max=epochs (20), but SchedulerStepper advances it "
                    "every batch (schedule.interval: step, 73 batches per epoch). CosineAnnealingLR is periodic "
                    "past T_max, so after warmup the LR swings between 3e-3 and 1e-5 with a period of 2*T_max = 40 "
                    "steps for the whole run instead of decaying once: the loss ripples every ~40 steps and the "
                    "final epochs run at a random LR. Not the data order or Adam's beta2; T_max must be the number "
                    "of scheduler steps (epochs * steps_per_epoch - warmup_steps).",
        keywords=[["t_max", "cosineannealing", "cosine"],
                  ["epoch"],
                  ["per batch", "per optimizer step", "every batch", "every step", "each batch", "each step",
                   "iteration", "steps_per_epoch", "len(train_loader)", "stepped", "interval"]],
        fix_description="Size the schedule in scheduler steps: pass steps_per_epoch (len(train_loader)) to "
                        "build_scheduler and use T_max = epochs * steps_per_epoch - warmup_steps when interval is "
                        "'step'.",
        must_change=[R(None, r"steps_per_epoch|len\(train_loader\)|total_steps|num_steps|T_max", "any"),
                     R("train.py", r"build_scheduler\(", "any")],
        must_not_change=["loadcast/model.py", "loadcast/data.py", "loadcast/features.py", "loadcast/synth.py",
                         "loadcast/trainer.py", "configs/default.yaml"],
        check_metric="lr_increases_after_peak",
    ),
    case(
        id="rnn-unsort-order", title="Length-sorting helper restores the batch order with the sort permutation instead of its inverse",
        inspired_by_url="https://github.com/ruotianluo/self-critical.pytorch/issues/125",
        also_see=["https://github.com/pytorch/pytorch/issues/4927", "https://github.com/fartashf/vsepp/pull/36"],
        category="batch reorder (sort/unsort permutation)", multi_file=True, misleading_symptom=True,
        file="intentrnn/sequence.py", marker="    def restore(self, y: torch.Tensor, dim: int = 0) -> torch.Tensor:",
        before=0, after=2,
        explanation="LengthSort sorts the batch by length for pack_padded_sequence and restore() should undo that "
                    "with the inverse permutation (order.argsort()), but it applies index_select(self.order) "
                    "again. For a shuffled batch the encoder's outputs come back permuted: example i gets the "
                    "representation of another utterance, so the logits no longer match their labels and the "
                    "model can only learn the class prior (loss stuck at ln 5 = 1.61). Pooling, cell type and LR "
                    "do not matter; not vanishing gradients.",
        keywords=[["unsort", "restore", "inverse", "argsort", "original order", "caller's order", "sort order",
                   "sorted order", "lengthsort", "permut"],
                  ["index_select", "self.order", "same permutation", "twice", "misalign", "mismatch",
                   "wrong example", "other example", "another example", "another utterance", "other utterance",
                   "scrambl", "wrong order", "wrong row", "don't match", "do not match", "no longer match"]],
        fix_description="Restore with the inverse permutation (inverse = order.argsort(); y.index_select(0, "
                        "inverse)), or drop the manual sort and use enforce_sorted=False.",
        must_change=[R(None, r"argsort|inverse|inv_|scatter_|enforce_sorted=False|\[self\.order\] *=", "added")],
        must_not_change=["intentrnn/data.py", "intentrnn/synth.py", "intentrnn/vocab.py", "intentrnn/trainer.py",
                         "train.py", "configs/default.yaml"],
        check_metric="max_logit_change_batched_vs_alone",
    ),
    case(
        id="fault-mha-batch-axis", title="Patch transformer builds its encoder blocks sequence-first: attention runs over the batch axis",
        inspired_by_url="https://github.com/om-ai-lab/OmDet/issues/19",
        also_see=["https://github.com/aipixel/AEMatter/issues/3", "https://github.com/kyegomez/movie-gen/issues/8",
                  "https://github.com/raoyongming/DenseCLIP/issues/55"],
        category="tensor layout (batch vs sequence axis)", multi_file=True, misleading_symptom=True,
        file="vibrosense/models/patch_transformer.py",
        marker="            EncoderBlock(dim, heads, mlp_ratio, dropout, attn_dropout, rates[i]) for i in range(depth))",
        also=[dict(file="vibrosense/models/layers.py", marker="                 batch_first: bool = False):", before=0, after=4)],
        before=1, after=0,
        explanation="EncoderBlock (layers.py) follows nn.MultiheadAttention's layout and defaults to batch_first=False "
                    "(tokens, batch, dim), kept for the legacy seq-first model. PatchTransformer builds its blocks "
                    "without batch_first=True but feeds them (batch, tokens, dim) tensors, so self-attention mixes "
                    "the same token position across the samples of the batch instead of mixing tokens within a "
                    "window. The CLS token is identical for every sample and never sees the patches, so the CLS "
                    "output (and the logits) are the same for every input: train loss stays at ln 5 = 1.61 and val "
                    "accuracy at chance. Not LR, warmup, depth or norm placement.",
        keywords=[["batch_first", "batch first", "batch-first", "sequence-first", "seq-first", "sequence first",
                   "(t, b", "(tokens, batch", "(seq, batch", "seq_len, batch", "batch dimension as", "batch axis",
                   "across the batch", "over the batch"],
                  ["encoderblock", "multiheadattention", "multi-head attention", "multihead attention", "attention",
                   "mha"]],
        fix_description="Build the blocks with batch_first=True in PatchTransformer (or transpose to (T, B, D) around "
                        "the blocks).",
        must_change=[R(None, r"batch_first\s*=\s*True|transpose|permute|swapaxes|movedim", "added")],
        must_not_change=["vibrosense/data/synth.py", "vibrosense/data/datasets.py", "vibrosense/data/transforms.py",
                         "vibrosense/engine/trainer.py", "vibrosense/optim/builders.py", "configs/default.yaml",
                         "configs/base.yaml", "train.py"],
        check_metric="max_logit_difference_between_windows",
    ),
    case(
        id="solubility-lambda-lr", title="LambdaLR wraps a schedule that returns an absolute LR: the LR is squared",
        inspired_by_url="https://github.com/lhoyer/MIC/issues/60",
        also_see=["https://github.com/gao-hongnan/omniverse/issues/82", "https://github.com/tsun/SSRT/issues/5",
                  "https://github.com/pytorch/pytorch/issues/78917"],
        category="LR scheduler factor vs absolute LR", multi_file=True, misleading_symptom=True,
        file="molprop/optim/builders.py", marker="    return LambdaLR(optimizer, lr_lambda=schedule)", before=4, after=0,
        also=[dict(file="molprop/optim/schedules.py", marker="class Schedule:", before=0, after=23)],
        explanation="The schedules in optim/schedules.py return the learning rate itself (base_lr=optim.lr, min_lr "
                    "absolute), which is right for tools/plot_schedule.py, but build_scheduler hands the same object "
                    "to LambdaLR, which multiplies the optimizer's initial LR by the returned value. The optimizer "
                    "therefore runs at lr * schedule(step) = 0.1 * 0.1 = 0.01 at the peak (and 1e-5 at the end) "
                    "instead of 0.1, so SGD under-trains and val rmse_logS ends at ~0.42 instead of ~0.37. "
                    "steps.jsonl logs lr 0.01 while the config and the schedule preview say 0.1. Not BatchNorm or "
                    "bit_dropout.",
        keywords=[["lambdalr", "lr_lambda", "lambda lr", "multiplicative", "multiplier", "factor"],
                  ["absolute", "base_lr", "squared", "twice", "lr^2", "lr**2", "lr * lr", "lr²", "0.01", "1e-2",
                   "times the base", "multiplied by the base", "multiplied by lr", "multiplies the"]],
        fix_description="Give LambdaLR a multiplier: lr_lambda=lambda s: schedule(s) / schedule.base_lr (or make the "
                        "schedules return factors and scale min_lr by base_lr).",
        must_change=[R(None, r"base_lr|factor|multiplier|lr_lambda|LambdaLR|ratio|initial_lr|\[.lr.\]", "added")],
        must_not_change=["molprop/models/mlp.py", "molprop/models/blocks.py", "molprop/data/features.py",
                         "molprop/data/synth.py", "molprop/engine/trainer.py", "configs/default.yaml",
                         "configs/base.yaml", "train.py"],
        check_metric="peak_lr_over_configured_lr",
    ),
    case(
        id="ecg-crop-desync", title="Keyed random transform re-draws its parameters for every key: signal and mask get different crops",
        inspired_by_url="https://github.com/hkchengrex/CascadePSP/issues/17",
        also_see=["https://github.com/huggingface/diffusers/issues/10697", "https://github.com/Project-MONAI/MONAI/issues/1464",
                  "https://github.com/mdbloice/Augmentor/issues/188"],
        category="input/label misalignment after augmentation", multi_file=True, misleading_symptom=True,
        file="ecgseg/data/keyed.py", marker="            self.randomize(np.shape(out[key])[-1])", before=3, after=0,
        also=[dict(file="ecgseg/data/transforms.py", marker="class RandCropd(RandomKeyedTransform):", before=0, after=11)],
        explanation="RandomKeyedTransform.__call__ calls self.randomize() inside the loop over keys, so a transform "
                    "listing both 'signal' and 'mask' draws new random parameters for each: RandCropd cuts the "
                    "signal and the annotation at different random offsets (up to 512 samples apart). Every "
                    "training crop's labels belong to another part of the record, so the U-Net can only learn the "
                    "label prior and predicts 'none' everywhere (val accuracy 0.477 = background fraction, IoU 0). "
                    "Validation uses deterministic transforms and is aligned. Not class imbalance: CE+Dice, class "
                    "weights or focal loss cannot help.",
        keywords=[["randomize", "random crop", "rand_crop", "randcrop", "crop offset", "crop window", "crop start",
                   "_start", "random offset", "random parameters", "random window"],
                  ["mask", "label", "annotation", "target"],
                  ["per key", "each key", "every key", "for each key", "inside the loop", "in the loop", "twice",
                   "separately", "independent", "different offset", "different start", "different crop",
                   "different window", "misalign", "not aligned", "out of sync", "desync", "mismatch",
                   "don't match", "do not match", "no longer match"]],
        fix_description="Draw the random parameters once per sample, before the loop over keys (randomize using the "
                        "first key's length), so every key gets the same crop.",
        must_change=[R(None, r"randomize|_start", "any")],
        must_not_change=["ecgseg/data/synth.py", "ecgseg/models/unet.py", "ecgseg/losses.py", "ecgseg/engine/trainer.py",
                         "configs/default.yaml", "configs/base.yaml", "train.py"],
        check_metric="qrs_slope_ratio_after_train_transforms",
    ),
    case(
        id="kws-group-lr-collapse", title="Schedule seeds every group's initial LR from optimizer.defaults: per-part LR multipliers are lost",
        inspired_by_url="https://github.com/deepspeedai/DeepSpeed/pull/8171",
        also_see=["https://github.com/deepspeedai/DeepSpeed/pull/7969",
                  "https://github.com/katsura-jp/pytorch-cosine-annealing-with-warmup/issues/11"],
        category="LR of parameter groups overwritten by the schedule", multi_file=True, misleading_symptom=True,
        file="kwspot/optim/schedules.py", marker='group.setdefault("initial_lr", optimizer.defaults["lr"])',
        before=1, after=1,
        explanation="param_groups() gives the filterbank, body and head their own LR (optim.lr times "
                    "frontend_lr_mult 0.05 / 1 / head_lr_mult 5), but _GroupSchedule records each group's "
                    "initial_lr from optimizer.defaults['lr'] (the optimizer's single constructor LR, optim.lr) "
                    "instead of the group's own lr, and then sets every group to that base times the "
                    "warmup/cosine factor. From the first schedule step every group trains at the body's LR: "
                    "the multipliers are silently ignored, so the frozen-filterbank ablation (mult 0.0) still "
                    "trains the filterbank and gives exactly the default's accuracy, and a head_lr_mult sweep "
                    "changes nothing. steps.json logs only group 0 (the body), which looks right. Not the "
                    "input BatchNorm or the mel initialisation.",
        keywords=[["initial_lr", "defaults", "base_lrs", "base lr", "per-group", "per group", "each group",
                   "every group", "param group", "parameter group"],
                  ["lr_mult", "multiplier", "frontend_lr", "head_lr", "ignored", "overwrit", "same lr",
                   "same learning rate", "collapse"]],
        fix_description="Seed each group's initial_lr from its own lr: group.setdefault('initial_lr', group['lr']).",
        must_change=[R("kwspot/optim/schedules.py", r"initial_lr|base_lrs", "any")],
        must_not_change=["kwspot/optim/param_groups.py", "kwspot/models/net.py", "kwspot/models/frontend.py",
                         "kwspot/engine/trainer.py", "configs/default.yaml", "configs/base.yaml",
                         "configs/fixed_frontend.yaml", "train.py"],
        check_metric="max_rel_error_group_lr_vs_config",
    ),
    case(
        id="fabric-aug-cached", title="Cache-split predicate uses any() for a stage: the random augmentation stage is cached once",
        inspired_by_url="https://github.com/tensorflow/tensorflow/issues/47755",
        also_see=["https://github.com/dbolya/yolact/issues/455", "https://github.com/emadeldeen24/TS-TCC/issues/5"],
        category="augmentation silently frozen (cached)", multi_file=True, misleading_symptom=True,
        file="weavecheck/data/pipeline.py", marker="return any(op.deterministic for op in self.ops)",
        before=2, after=0,
        explanation="With data.cache: true the dataset caches the output of the leading stages that "
                    "Pipeline.split() considers deterministic. Stage.deterministic is any(...) instead of "
                    "all(...), so the 'augment' stage (random dihedral, shift, brightness, noise, then a "
                    "deterministic standardize) counts as deterministic and is cached together with decoding: "
                    "each training patch is augmented once, on its first access, and the same augmented copy is "
                    "served every epoch. The 200 training patches are memorised (train acc 0.97, val 0.66-0.68 "
                    "instead of ~0.76). tools/show_augment.py calls the pipeline directly, so it shows varied "
                    "views. Not model capacity: dropout, width or stronger augmentation settings cannot help.",
        keywords=[["cache", "cached", "caching", "split()", "deterministic"],
                  ["augment", "random", "rand_"],
                  ["any(", "any()", "all(", "all()", "once", "frozen", "same augment", "every epoch",
                   "each epoch", "never re", "identical"]],
        fix_description="A stage is deterministic only if all its ops are: return all(op.deterministic for op in self.ops).",
        must_change=[R("weavecheck/data/pipeline.py", r"any\(|all\(|deterministic|cache", "any")],
        must_not_change=["weavecheck/data/transforms.py", "weavecheck/models/cnn.py", "weavecheck/engine/trainer.py",
                         "configs/default.yaml", "configs/base.yaml", "train.py"],
        check_metric="fraction_of_train_patches_that_change_between_epochs",
    ),
    case(
        id="ticket-macro-f1-batchmean", title="Macro-F1 computed per evaluation batch and averaged: reported score biased low",
        inspired_by_url="https://github.com/apache/mxnet/issues/9830",
        also_see=["https://github.com/thunlp/Few-NERD/issues/2", "https://github.com/namiyousef/argument-mining/issues/45"],
        category="metric averaging (per-batch macro-F1)", multi_file=True, misleading_symptom=True,
        file="triage/metrics.py", marker="        self.f1.update(macro_f1(pred, target, self.n_classes), n)",
        before=0, after=0,
        explanation="MetricTracker.update computes macro-F1 on each evaluation batch and keeps a "
                    "batch-size-weighted mean of those values, the same way it (correctly) averages accuracy. "
                    "Macro-F1 is not a mean over samples: in a batch of 64 the rare legal (5%) and security (3%) "
                    "queues are often absent, so their F1 counts as 0 for that batch, and the reported macro-F1 "
                    "is biased low and depends on eval_batch_size (0.654 reported vs 0.695 on the whole "
                    "validation set for the default run). The naive Bayes baseline calls macro_f1 once on all "
                    "predictions, so it is scored correctly. Not class imbalance in training: class weights or "
                    "focal loss cannot fix a metric.",
        keywords=[["macro", "f1"],
                  ["per batch", "per-batch", "each batch", "every batch", "batch-wise", "batchwise", "per minibatch",
                   "per mini-batch", "across batches", "over batches", "of batches", "batch average", "batch-average",
                   "batch-weighted", "batch weighted", "mean of", "average of", "averaging f1", "averages f1",
                   "averaged f1", "eval_batch_size", "evaluation batch size", "eval batch size",
                   "depends on the batch size", "confusion matrix", "accumulat"]],
        fix_description="Accumulate the confusion matrix (or TP/FP/FN per class) over all batches and compute "
                        "macro-F1 once in compute().",
        must_change=[R(None, r"self\.f1\.update|confusion|macro_f1\(|f1_per_class|cat\(|preds", "any")],
        must_not_change=["triage/losses.py", "triage/models/bag.py", "triage/data/datasets.py", "triage/data/synth.py",
                         "configs/default.yaml", "configs/base.yaml", "train.py", "baselines/naive_bayes.py"],
        check_metric="abs_error_reported_vs_dataset_macro_f1",
    ),
    case(
        id="imu-bucket-sampler-epoch", title="Length-bucketing batch sampler seeds its RNG without the epoch: identical batches every epoch",
        inspired_by_url="https://github.com/lancedb/lancedb/issues/3705",
        also_see=["https://github.com/facebookresearch/spdl/pull/1360", "https://github.com/tensorflow/tensorflow/issues/13446"],
        category="data order that never changes across epochs", multi_file=True, misleading_symptom=True,
        file="imugest/data/samplers.py", marker="        rng = np.random.default_rng(self.seed)\n        yield from self._batches(rng)",
        before=1, after=1,
        explanation="BucketBatchSampler.__iter__ (the default, data.sampler: bucket) builds its generator from "
                    "self.seed alone. set_epoch() stores the epoch and the SamplerEpoch callback calls it every "
                    "epoch, but the epoch never reaches the RNG (RandomBatchSampler does use seed + epoch), so the "
                    "length jitter, the shuffles inside the length windows and the batch order are the same in "
                    "every epoch: every recording meets the same batch-mates at the same position of every epoch. "
                    "Accuracy hardly shows it in a 15-epoch run; the per-step loss trace repeats its shape each "
                    "epoch. Not mislabelled or corrupted recordings.",
        keywords=[["self.seed", "self.epoch", "default_rng", "set_epoch", "generator", "seeded", "reseed",
                   "re-seed", "the rng", "its rng", "rng is", "rng with"],
                  ["same order", "same batches", "identical", "never change", "never reshuffl", "not reshuffl",
                   "doesn't reshuffle", "does not reshuffle", "no reshuffl", "same sequence", "ignores the epoch",
                   "ignored", "unused", "never used", "without the epoch", "not the epoch", "same in every epoch",
                   "same every epoch", "same each epoch", "every epoch is the same", "repeats every epoch",
                   "repeated every epoch", "frozen"]],
        fix_description="Seed the bucket sampler's generator with the epoch too, e.g. np.random.default_rng((self.seed, self.epoch)).",
        must_change=[R("imugest/data/samplers.py", r"default_rng|epoch|rng", "any")],
        must_not_change=["imugest/data/datasets.py", "imugest/data/synth.py", "imugest/models/convnet.py",
                         "imugest/engine/trainer.py", "imugest/callbacks.py", "configs/default.yaml",
                         "configs/base.yaml", "train.py"],
        check_metric="fraction_of_epoch1_batches_repeated_in_epoch2",
    ),
]


def count_lines(project: Path) -> int:
    return sum(len(p.read_text().splitlines()) for p in sorted(project.rglob("*"))
               if p.is_file() and p.suffix in TEXT_SUFFIXES and "__pycache__" not in p.parts)


def locate(project: Path, file: str, marker: str, before: int, after: int) -> list[int]:
    text = (project / file).read_text()
    assert text.count(marker) == 1, (file, marker, text.count(marker))
    line = text[: text.index(marker)].count("\n") + 1
    return [line - before, line + marker.count("\n") + after]


def main() -> None:
    for c in CASES:
        case_dir = CASES_DIR / c["id"]
        project = case_dir / "project"
        key = {
            "id": c["id"],
            "title": c["title"],
            "inspired_by_url": c["inspired_by_url"],
            "also_see": c["also_see"],
            "category": c["category"],
            "root_cause": {
                "file": c["file"],
                "lines": locate(project, c["file"], c["marker"], c["before"], c["after"]),
                "explanation": c["explanation"],
                "keywords": c["keywords"],
            },
            "fix": {
                "description": c["fix_description"],
                "must_change": c["must_change"],
                "must_not_change": c["must_not_change"],
            },
            "check": {"script": "check.py", "metric": c["check_metric"], "buggy_pass": False, "fixed_pass": True},
            "multi_file": c["multi_file"],
            "misleading_symptom": c["misleading_symptom"],
            "lines_total": count_lines(project),
            "n_files": sum(1 for p in project.rglob("*") if p.is_file() and p.suffix in TEXT_SUFFIXES
                           and "__pycache__" not in p.parts),
        }
        if c.get("also"):
            # other places the same root cause lives (the default a caller relies on, the schedule it wraps):
            # an answer that names one of them with its lines or the key's concepts counts as right
            key["root_cause"]["also"] = [
                {"file": a["file"], "lines": locate(project, a["file"], a["marker"], a["before"], a["after"])} for a in c["also"]
            ]
        (case_dir / "answer_key.json").write_text(json.dumps(key, indent=2) + "\n")
        print(f"{c['id']:26s} {key['root_cause']['file']}:{key['root_cause']['lines']} lines={key['lines_total']}")


if __name__ == "__main__":
    main()
