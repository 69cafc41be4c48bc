"""The ``accumulator-not-reset`` rule (``mlsleuth/scan/rules/evaluation/accumulator_not_reset.py``)."""

from __future__ import annotations

from scan.helpers import check

RULE = {"accumulator-not-reset"}


def test_vision_meter_created_before_the_epoch_loop():
    src = """
    import torch

    def train(model, loader, val_loader, optimizer, criterion, epochs):
        val_meter = AverageMeter("val")  # expect: accumulator-not-reset
        for epoch in range(epochs):
            model.train()
            for images, target in loader:
                loss = criterion(model(images), target)
                optimizer.zero_grad()
                loss.backward()
                optimizer.step()
            model.eval()
            with torch.no_grad():
                for images, target in val_loader:
                    val_meter.update(criterion(model(images), target).item(), images.size(0))
            print(f"epoch {epoch} val loss {val_meter.avg:.4f}")
    """
    check(src, RULE)


def test_nlp_sum_and_count_and_tabular_confusion_matrix():
    src = """
    import numpy as np
    import torch

    def fit(model, batches, dev_batches, opt, n_epochs):
        correct, total = 0, 0  # expect: accumulator-not-reset
        for epoch in range(n_epochs):
            for batch in batches:
                out = model(batch["input_ids"], attention_mask=batch["attention_mask"])
                out.loss.backward()
                opt.step()
                opt.zero_grad()
                preds = out.logits.argmax(-1)
                correct += (preds == batch["labels"]).sum().item()
                total += batch["labels"].numel()
            print("train acc", correct / total)

    def run(clf, X_batches, y_batches, n_rounds, k):
        cm = np.zeros((k, k))  # expect: accumulator-not-reset
        for rnd in range(n_rounds):
            clf.partial_fit(X_batches[rnd], y_batches[rnd])
            for xb, yb in zip(X_batches, y_batches):
                for t, p in zip(yb, clf.predict(xb)):
                    cm[t, p] += 1
            print(rnd, np.trace(cm) / cm.sum())
    """
    check(src, RULE)


def test_rl_episode_return_and_list_of_predictions():
    src = """
    import numpy as np
    from sklearn.metrics import f1_score

    def play(env, agent, episodes):
        ep_return = 0.0  # expect: accumulator-not-reset
        for episode in range(episodes):
            obs, _ = env.reset()
            done = False
            while not done:
                action = agent.act(obs)
                obs, reward, terminated, truncated, _ = env.step(action)
                ep_return += reward
                done = terminated or truncated
            agent.log(episode, ep_return / 1.0)

    def audio_eval(model, clips_per_epoch, epochs):
        preds, labels = [], []  # expect: accumulator-not-reset
        for epoch in range(epochs):
            for wav, label in clips_per_epoch:
                preds.append(model(wav).argmax(-1).item())
                labels.append(label)
            print(epoch, f1_score(labels, preds, average="macro"))
    """
    check(src, RULE)


def test_meter_passed_to_a_helper_in_another_module(tmp_path):
    from mlsleuth.config import Config
    from mlsleuth.scan import scan_paths

    (tmp_path / "engine.py").write_text(
        "import torch\n\n"
        "def validate(model, loader, losses):\n"
        "    model.eval()\n"
        "    with torch.no_grad():\n"
        "        for x, y in loader:\n"
        "            losses.update(torch.nn.functional.mse_loss(model(x), y).item(), x.size(0))\n"
        "    return losses.avg\n"
    )
    (tmp_path / "train.py").write_text(
        "from engine import validate\n"
        "from meters import AverageMeter\n\n"
        "def main(model, loader, epochs):\n"
        "    val_losses = AverageMeter('val')\n"
        "    best = float('inf')\n"
        "    for epoch in range(epochs):\n"
        "        v = validate(model, loader, val_losses)\n"
        "        if v < best:\n"
        "            best = v\n"
    )
    report = scan_paths([tmp_path], root=tmp_path, config=Config(), use_cache=False, jobs=1)
    found = [(f.location.path.rsplit("/", 1)[-1], f.location.line) for f in report.findings if f.rule in RULE]
    assert found == [("train.py", 8)], found


def test_trainer_attribute_and_lightning_hooks():
    # the Trainer's finding is where the period loop calls the method that updates and reads the metric
    src = """
    import torch
    import torchmetrics
    import lightning as L

    class Trainer:
        def __init__(self, model, loader, val_loader):
            self.model, self.loader, self.val_loader = model, loader, val_loader
            self.val_acc = torchmetrics.Accuracy(task="multiclass", num_classes=10)

        def validate(self):
            self.model.eval()
            for x, y in self.val_loader:
                self.val_acc.update(self.model(x).argmax(-1), y)
            return self.val_acc.compute()

        def fit(self, epochs):
            for epoch in range(epochs):
                self.train_epoch()
                print(epoch, self.validate())  # expect: accumulator-not-reset

    class Classifier(L.LightningModule):
        def __init__(self, net):
            super().__init__()
            self.net = net
            self.val_f1 = torchmetrics.F1Score(task="multiclass", num_classes=5)
            self.val_outputs = []

        def validation_step(self, batch, batch_idx):
            x, y = batch
            logits = self.net(x)
            self.val_f1.update(logits, y)
            self.val_outputs.append(logits.argmax(-1) == y)

        def on_validation_epoch_end(self):
            self.log("val_f1", self.val_f1.compute())  # expect: accumulator-not-reset
            self.log("val_acc", torch.cat(self.val_outputs).float().mean())  # expect: accumulator-not-reset
    """
    check(src, RULE)


def test_gradient_accumulation_loss_and_aliased_meter_across_loaders():
    src = """
    import torch

    def train(model, micro_batches, optimizer, max_steps, accum):
        loss_sum = 0.0  # expect: accumulator-not-reset
        step = 0
        while step < max_steps:
            for mb in micro_batches[step]:
                loss = model(mb) / accum
                loss.backward()
                loss_sum += loss.item()
            optimizer.step()
            optimizer.zero_grad()
            print(step, loss_sum / accum)
            step += 1

    def evaluate_all(model, loaders):
        meter = Meter()  # expect: accumulator-not-reset
        for name, loader in loaders.items():
            for x, y in loader:
                meter.update((model(x).argmax(1) == y).float().mean().item())
            print(name, meter.avg)
    """
    check(src, RULE)


def test_meters_created_or_reset_every_epoch_are_fine():
    src = """
    import torch

    def train(model, loader, val_loader, epochs, criterion):
        train_meter = AverageMeter("train")
        val_meter = AverageMeter("val")
        for epoch in range(epochs):
            train_meter.reset()
            epoch_meter = AverageMeter("epoch")
            for x, y in loader:
                loss = criterion(model(x), y)
                train_meter.update(loss.item())
                epoch_meter.update(loss.item())
            with torch.no_grad():
                for x, y in val_loader:
                    val_meter.update(criterion(model(x), y).item())
            print(train_meter.avg, epoch_meter.avg, val_meter.avg)
            val_meter.reset()

    def fit(model, loaders, epochs):
        for epoch in range(epochs):
            for phase in ["train", "val"]:
                running_loss, running_corrects = 0.0, 0
                for inputs, labels in loaders[phase]:
                    outputs = model(inputs)
                    running_loss += outputs.loss.item() * inputs.size(0)
                    running_corrects += (outputs.logits.argmax(1) == labels).sum().item()
                print(phase, running_loss / len(loaders[phase].dataset), running_corrects / len(loaders[phase].dataset))
    """
    check(src, RULE)


def test_reset_by_a_helper_or_a_lightning_hook_is_fine():
    src = """
    import torchmetrics
    import lightning as L

    def reset_all(meters):
        for m in meters:
            m.reset()

    def start_epoch(meter):
        meter.reset()

    def run(model, loader, epochs):
        loss_meter, acc_meter = AverageMeter(), AverageMeter()
        for epoch in range(epochs):
            start_epoch(loss_meter)
            reset_all([acc_meter])
            for x, y in loader:
                loss_meter.update(model(x).item())
                acc_meter.update(model(x).item())
            print(loss_meter.avg)

    class Module(L.LightningModule):
        def __init__(self):
            super().__init__()
            self.val_acc = torchmetrics.Accuracy(task="binary")
            self.train_acc = torchmetrics.Accuracy(task="binary")
            self.val_auc = torchmetrics.AUROC(task="binary")

        def training_step(self, batch, batch_idx):
            self.train_acc(self.net(batch[0]), batch[1])
            self.log("train_acc", self.train_acc, on_epoch=True)

        def validation_step(self, batch, batch_idx):
            self.val_acc.update(self.net(batch[0]), batch[1])
            self.val_auc.update(self.net(batch[0]), batch[1])

        def on_validation_epoch_end(self):
            self.log("val_acc", self.val_acc.compute())
            self.val_acc.reset()
            self.log("val_auc", self.val_auc)
    """
    check(src, RULE)


def test_cumulative_counters_histories_and_moving_averages_are_fine():
    src = """
    import time
    import numpy as np
    from collections import deque

    def train(model, loader, epochs, writer):
        global_step = 0
        samples_seen = 0
        best_acc = 0.0
        train_losses = []
        step_losses = []
        ema_loss = 0.0
        recent = deque(maxlen=100)
        smoothed = SmoothedValue(window_size=20)
        start = time.time()
        elapsed = 0.0
        for epoch in range(epochs):
            epoch_loss = 0.0
            for x, y in loader:
                loss = model(x, y)
                global_step += 1
                samples_seen += x.size(0)
                step_losses.append(loss.item())
                ema_loss = 0.98 * ema_loss + 0.02 * loss.item()
                recent.append(loss.item())
                smoothed.update(loss.item())
                epoch_loss += loss.item()
                t0 = time.time()
                elapsed += time.time() - t0
            train_losses.append(epoch_loss / len(loader))
            acc = evaluate(model)
            if acc > best_acc:
                best_acc = acc
            writer.add_scalar("sps", global_step / (time.time() - start), epoch)
            print(epoch, samples_seen / elapsed, ema_loss, np.mean(recent), smoothed.avg, step_losses[-1])
            print(np.mean(step_losses[-100:]), len(train_losses))
        plot(step_losses)

    def dqn(env, agent, episodes, batch_size):
        replay = []
        for episode in range(episodes):
            obs, done = env.reset(), False
            while not done:
                action = agent.act(obs)
                nxt, reward, done, _ = env.step(action)
                replay.append((obs, action, reward, nxt, done))
                obs = nxt
            data = np.array(replay, dtype=object)
            agent.learn(data[np.random.randint(len(data), size=batch_size)])

    def bandit(env, policy, horizon):
        cumulative_regret = 0.0
        for t in range(1, horizon):
            for arm in policy.arms:
                cumulative_regret += env.gap(arm) * policy.pulls(arm, t)
            print(t, cumulative_regret / t)
    """
    check(src, RULE)


def test_summaries_read_once_after_the_loop_or_per_batch_are_fine():
    src = """
    import numpy as np
    import evaluate

    def score(model, loader, epochs):
        meter = AverageMeter()
        all_preds = []
        for epoch in range(epochs):
            for x, y in loader:
                meter.update(model(x).item())
                all_preds.extend(model(x).argmax(-1).tolist())
        print(meter.avg, np.mean(all_preds))

    def per_batch(model, loader):
        correct, total = 0, 0
        for x, y in loader:
            for p, t in zip(model(x).argmax(-1), y):
                correct += int(p == t)
                total += 1
            print(correct / total)

    def hf_eval(model, loader, epochs):
        metric = evaluate.load("accuracy")
        for epoch in range(epochs):
            for batch in loader:
                metric.add_batch(predictions=model(**batch).logits.argmax(-1), references=batch["labels"])
            print(metric.compute())

    def ema_training(model, ema, loader, epochs):
        ema = ModelEma(model, decay=0.999)
        for epoch in range(epochs):
            for x, y in loader:
                ema.update(model)
            print(validate(ema.module))
    """
    check(src, RULE)


def test_attribute_reset_elsewhere_or_method_called_once_is_fine():
    src = """
    class Evaluator:
        def __init__(self, model, loader):
            self.model, self.loader = model, loader
            self.meter = AverageMeter()
            self.totals = []

        def run(self):
            for x, y in self.loader:
                self.meter.update(self.model(x).item())
                self.totals.append(self.model(x).item())
            result = self.meter.avg, sum(self.totals)
            return result

    class Trainer:
        def __init__(self, model, loader):
            self.model, self.loader = model, loader
            self.val_meter = AverageMeter()

        def validate(self):
            for x, y in self.loader:
                self.val_meter.update(self.model(x).item())
            return self.val_meter.avg

        def on_epoch_start(self):
            self.val_meter = AverageMeter()

        def fit(self, epochs):
            for epoch in range(epochs):
                self.on_epoch_start()
                print(self.validate())

    def main(model, loader):
        print(Evaluator(model, loader).run())
    """
    check(src, RULE)


def test_per_epoch_sum_printed_bare():
    src = """
    def train(model, loader, optimizer, epochs, history):
        epoch_loss = 0.0  # expect: accumulator-not-reset
        total_loss = 0.0
        for epoch in range(epochs):
            for x, y in loader:
                loss = model(x, y)
                loss.backward()
                optimizer.step()
                epoch_loss += loss.item()
                total_loss += loss.item()
            history.append(epoch_loss)
            print(f"epoch {epoch}: {epoch_loss:.3f} (all epochs: {total_loss:.3f})")
    """
    check(src, RULE)


def test_callback_hooks_read_per_epoch_and_reset_ones():
    src = """
    import numpy as np
    from tensorflow import keras

    class LossHistory(keras.callbacks.Callback):
        def __init__(self):
            super().__init__()
            self.batch_losses = []
            self.all_losses = []

        def on_train_batch_end(self, batch, logs=None):
            self.batch_losses.append(logs["loss"])
            self.all_losses.append(logs["loss"])

        def on_epoch_end(self, epoch, logs=None):
            print(epoch, np.mean(self.batch_losses))  # expect: accumulator-not-reset

        def on_train_end(self, logs=None):
            print(np.mean(self.all_losses))

    class TestCollector(keras.callbacks.Callback):
        def __init__(self):
            super().__init__()
            self.outs = []
            self.val = []

        def on_test_batch_end(self, batch, logs=None):
            self.outs.append(logs["loss"])

        def on_test_epoch_end(self, logs=None):
            print(np.mean(self.outs))

        def on_batch_end(self, batch, logs=None):
            self.val.append(logs["loss"])

        def on_epoch_end(self, epoch, logs=None):
            print(np.mean(self.val))
            self.val.clear()
    """
    check(src, RULE)


def test_trainer_methods_update_the_attribute_and_fit_reads_it():
    src = """
    class SegTrainer:
        def __init__(self, model, loaders):
            self.model, self.loaders = model, loaders
            self.val_meter = AverageMeter()
            self.train_meter = AverageMeter()

        def validate(self):
            for x, y in self.loaders["val"]:
                self.val_meter.update(iou(self.model(x), y))

        def train_epoch(self):
            self.train_meter.reset()
            for x, y in self.loaders["train"]:
                self.train_meter.update(self.model.step(x, y))

        def fit(self, epochs):
            for epoch in range(epochs):
                self.train_epoch()
                self.validate()
                print(epoch, self.train_meter.avg, self.val_meter.avg)  # expect: accumulator-not-reset
    """
    check(src, RULE)


def test_validate_method_called_per_epoch_from_another_object():
    src = """
    class Validator:
        def __init__(self, loader):
            self.loader = loader
            self.losses = []

        def __call__(self, model):
            for x, y in self.loader:
                self.losses.append(model.loss(x, y).item())
            return sum(self.losses) / len(self.losses)  # expect: accumulator-not-reset

    def main(model, loaders, epochs):
        validator = Validator(loaders["val"])
        for epoch in range(epochs):
            model.fit_epoch(loaders["train"])
            print(validator.__call__(model))
    """
    check(src, RULE)


def test_module_level_metrics_updated_by_module_functions():
    # a script at module level (a TF tutorial's shape) and a function's epoch loop reading a module-level metric
    src = """
    import tensorflow as tf

    train_loss = tf.keras.metrics.Mean(name="train_loss")  # expect: accumulator-not-reset
    val_hits = []

    @tf.function
    def train_step(images, labels):
        with tf.GradientTape() as tape:
            loss = loss_object(labels, model(images, training=True))
        optimizer.apply_gradients(zip(tape.gradient(loss, model.trainable_variables), model.trainable_variables))
        train_loss(loss)

    for epoch in range(EPOCHS):
        for images, labels in train_ds:
            train_step(images, labels)
        print(f"epoch {epoch + 1} loss {train_loss.result()}")

    def fit(policy, env_batches, n_rounds):
        for rnd in range(n_rounds):
            for obs, act in env_batches:
                val_hits.append(float((policy(obs).argmax(-1) == act).float().mean()))
            print(rnd, sum(val_hits) / len(val_hits))  # expect: accumulator-not-reset
    """
    check(src, RULE)


def test_lightning_outputs_list_joined_at_epoch_end_never_cleared():
    src = """
    import torch
    import lightning as L

    class Tagger(L.LightningModule):
        def __init__(self, net):
            super().__init__()
            self.net = net
            self.val_preds = []

        def validation_step(self, batch, batch_idx):
            tokens, tags = batch
            self.val_preds.append((self.net(tokens).argmax(-1) == tags).float())

        def on_validation_epoch_end(self):
            hits = torch.cat(self.val_preds)  # expect: accumulator-not-reset
            self.log("val_acc", hits.mean())
    """
    check(src, RULE)


def test_module_level_metrics_reset_shadowed_or_cleared_are_fine():
    src = """
    import tensorflow as tf
    import torch
    import lightning as L

    train_loss = tf.keras.metrics.Mean(name="train_loss")
    total = 0.0
    scores = []

    def train_step(x, y):
        train_loss(loss_object(y, model(x)))

    def reset_totals():
        global total
        total = 0.0

    for epoch in range(EPOCHS):
        train_loss.reset_states()
        for x, y in train_ds:
            train_step(x, y)
        print(train_loss.result())

    def run(loader, n_epochs):
        global total
        for epoch in range(n_epochs):
            reset_totals()
            for x, y in loader:
                total += float(model(x).sum())
            print(total / len(loader))

    def evaluate(model, loaders):
        for name, loader in loaders.items():
            scores = []
            for x, y in loader:
                scores.append(model.score(x, y))
            print(name, sum(scores) / len(scores))

    class Tagger(L.LightningModule):
        def __init__(self, net):
            super().__init__()
            self.net = net
            self.val_preds = []

        def validation_step(self, batch, batch_idx):
            self.val_preds.append(self.net(batch[0]).argmax(-1))

        def on_validation_epoch_end(self):
            preds = torch.cat(self.val_preds)
            self.log("val_pos", preds.float().mean())
            self.val_preds.clear()
    """
    check(src, RULE)
