"""The ``metric-from-last-batch-only`` rule (``mlsleuth/scan/rules/evaluation/metric_from_last_batch_only.py``)."""

from __future__ import annotations

from scan.helpers import check, findings

RULE = "metric-from-last-batch-only"


def test_accuracy_overwritten_per_batch_returned_after_no_grad_block():
    src = """
    import torch

    def validate(val_data, net, criterion):
        net.eval()
        _loss = 0.0
        with torch.no_grad():
            for data, label in val_data:
                outputs = net(data)
                loss = criterion(outputs, label)
                accuracy = (outputs.argmax(dim=1) == label).float().mean().item()  # expect: metric-from-last-batch-only
                _loss += loss.item()
        net.train()
        return _loss / len(val_data), accuracy
    """
    (f,) = findings(src, RULE)
    check(src, {RULE})
    assert "accuracy" in f.message


def test_sklearn_score_logged_and_val_loss_printed():
    src = """
    from sklearn.metrics import f1_score
    import wandb

    def evaluate(model, loader, loss_fn, epoch):
        model.eval()
        for step, (x, y) in enumerate(loader):
            logits = model(x)
            preds = logits.argmax(-1)
            f1 = f1_score(y.cpu().numpy(), preds.cpu().numpy(), average="macro")  # expect: metric-from-last-batch-only
            val_loss = loss_fn(logits, y)  # expect: metric-from-last-batch-only
        wandb.log({"val/f1": f1, "epoch": epoch})
        print(f"epoch {epoch}: val loss {val_loss.item():.4f}")
    """
    check(src, {RULE})


def test_metric_computed_after_the_loop_from_last_batch_names():
    src = """
    import torch

    def test(model, test_loader):
        model.eval()
        with torch.no_grad():
            for images, labels in test_loader:
                outputs = model(images)
                _, predicted = torch.max(outputs, 1)
        acc = (predicted == labels).sum().item() / labels.size(0)  # expect: metric-from-last-batch-only
        return acc

    class Trainer:
        def eval_epoch(self, loader):
            for batch in loader:
                out = self.model(batch["x"])
                pred = out.argmax(1)
            return self.metric_fn(pred, batch["y"])  # expect: metric-from-last-batch-only
    """
    check(src, {RULE})


def test_negative_accumulated_meters_and_running_counts():
    src = """
    import torch

    class AverageMeter:
        def __init__(self):
            self.sum, self.count, self.avg = 0.0, 0, 0.0

        def update(self, val, n=1):
            self.sum += val * n
            self.count += n
            self.avg = self.sum / self.count

    def with_meter(net, loader):
        meter = AverageMeter()
        for data, label in loader:
            outputs = net(data)
            accuracy = (outputs.argmax(dim=1) == label).float().mean().item()
            meter.update(accuracy, label.size(0))
        return meter.avg

    def running(net, loader):
        correct, seen = 0, 0
        for data, label in loader:
            pred = net(data).argmax(1)
            correct += (pred == label).sum().item()
            seen += label.size(0)
            acc = correct / seen
        return acc

    def collected(net, loader):
        preds, labels = [], []
        for x, y in loader:
            p = net(x).argmax(1)
            preds.append(p)
            labels.append(y)
        preds = torch.cat(preds)
        labels = torch.cat(labels)
        return (preds == labels).float().mean()

    def per_epoch(model, train_loader, val_loader, epochs):
        for epoch in range(epochs):
            val_acc = evaluate(model, val_loader)
        return val_acc

    def training(model, loader, opt, criterion):
        for x, y in loader:
            loss = criterion(model(x), y)
            opt.zero_grad()
            loss.backward()
            opt.step()
        print("last loss", loss.item())

    def peek(loader, model):
        for x, y in loader:
            out = model(x)
            break
        return (out.argmax(1) == y).float().mean()

    def listed(loader, model):
        accs = []
        for x, y in loader:
            acc = (model(x).argmax(1) == y).float().mean()
            accs.append(acc)
        return sum(accs) / len(accs)
    """
    check(src, {RULE})


def test_negative_search_loops_and_training_progress_lines():
    src = """
    def first_loss_key(metrics):
        prefix = "eval"
        for k in metrics:
            if k.endswith("_loss"):
                prefix = k[:-5]
        return prefix

    def fit(model, loader, opt, criterion, epoch):
        for image, mask in loader:
            logits = model(image)
            loss = criterion(logits, mask)
            opt.zero_grad()
            loss.backward()
            opt.step()
        print(f"epoch {epoch} loss {loss.item():.4f} acc {pixel_accuracy(logits, mask):.3f}")

    def versions(snapshot, nodes):
        for node in nodes:
            key = node.key
        return [k for k, v in snapshot if k == 1]
    """
    check(src, {RULE})


def test_value_added_to_a_total_but_itself_reported():
    # vision (dice), graphs (a shared train/eval loop), NLP (a meter), RL (returns), audio (a print), tabular (HF evaluate)
    src = """
    import evaluate
    import logging
    import numpy as np
    import torch

    log = logging.getLogger(__name__)

    def dice_eval(model, loader, device):
        running, seen = 0.0, 0
        for images, masks in loader:
            images, masks = images.to(device), masks.to(device)
            probs = model(images).sigmoid()
            d = (2 * (probs * masks).sum() / (probs.sum() + masks.sum())).item()
            running += d * images.size(0)
            seen += images.size(0)
        return d  # expect: metric-from-last-batch-only

    def loop_dataset(graphs, classifier, batches, optimizer=None):
        rows, n = [], 0
        for idx in batches:
            _, loss, acc = classifier([graphs[i] for i in idx])
            if optimizer is not None:
                optimizer.zero_grad()
                loss.backward()
                optimizer.step()
            rows.append(np.array([loss.item(), acc]) * len(idx))
            n += len(idx)
        avg = np.sum(rows, 0) / n
        return avg, acc  # expect: metric-from-last-batch-only

    def validate(model, loader, losses, top1):
        with torch.no_grad():
            for batch in loader:
                out = model(**batch)
                hit = (out.logits.argmax(-1) == batch["labels"]).float().mean().item()
                top1.update(hit, batch["labels"].size(0))
                losses.update(out.loss.item())
        return losses.avg, hit  # expect: metric-from-last-batch-only

    def rollout_returns(policy, trajectories):
        returns = []
        for traj in trajectories:
            ret = float(sum(policy.rewards(traj)))
            returns.append(ret)
        log.info("eval return %.2f", ret)  # expect: metric-from-last-batch-only

    def word_error_rate(decoder, utterances):
        total = 0.0
        for feats, ref in utterances:
            rate = decoder.errors(feats, ref) / len(ref.split())
            total += rate
        print(f"WER {rate:.3f}")  # expect: metric-from-last-batch-only

    def tabular_eval(model, dataloader):
        metric = evaluate.load("accuracy")
        for batch in dataloader:
            with torch.no_grad():
                predictions = model(**batch).logits.argmax(dim=-1)
        return metric.compute(predictions=predictions, references=batch["labels"])  # expect: metric-from-last-batch-only
    """
    check(src, {RULE})


def test_training_epoch_returns_last_batch_accuracy_beside_the_mean_loss():
    src = """
    def train_epoch(model, loader, opt, crit):
        total = 0.0
        for x, y in loader:
            opt.zero_grad()
            out = model(x)
            loss = crit(out, y)
            loss.backward()
            opt.step()
            total += loss.item()
            acc = (out.argmax(1) == y).float().mean().item()  # expect: metric-from-last-batch-only
        return total / len(loader), acc
    """
    check(src, {RULE})


def test_negative_totals_reported_or_last_value_shown_beside_them():
    src = """
    import torch

    def side_by_side(model, loader):
        running, seen = 0.0, 0
        for x, y in loader:
            d = float(model.score(x, y))
            running += d * len(y)
            seen += len(y)
        print(f"mean {running / seen:.3f} (last batch {d:.3f})")
        return running / seen

    def rebound(model, loader):
        running, seen = 0.0, 0
        for x, y in loader:
            d = float(model.score(x, y))
            running += d * len(y)
            seen += len(y)
        d = running / seen
        return d

    def training_progress(model, loader, opt, crit, epoch):
        total = 0.0
        for x, y in loader:
            loss = crit(model(x), y)
            opt.zero_grad()
            loss.backward()
            opt.step()
            total += loss.item()
        print(f"epoch {epoch} last loss {loss.item():.4f}")
        return total / len(loader)

    def recurrent(cell, xs, h):
        outs = []
        for x_t in xs:
            h = cell(x_t, h)
            outs.append(h)
        seq = torch.stack(outs)
        return seq, h

    def early_exit(model, loader, thr):
        total = 0.0
        for x, y in loader:
            loss = float(model.loss(x, y))
            total += loss
            if loss < thr:
                break
        return loss

    def outputs_for_display(model, loader, crit):
        total = 0.0
        for x, y in loader:
            out = model(x)
            total += crit(out, y).item()
        avg = total / len(loader)
        return avg, out

    def conditional(model, loader):
        total = 0.0
        for x, y in loader:
            if y.numel():
                s = float(model.score(x, y))
                total += s
        return s

    def compared(model, loader, best):
        total = 0.0
        for x, y in loader:
            s = float(model.score(x, y))
            total += s
        if s > best:
            best = total
        return best
    """
    check(src, {RULE})


def test_total_started_again_inside_the_batch_loop():
    src = """
    import torch

    def evaluate(model, loader):
        with torch.no_grad():
            for x, y in loader:
                correct, seen = 0, 0  # expect: metric-from-last-batch-only
                correct += (model(x).argmax(1) == y).sum().item()
                seen += y.size(0)
        return correct / seen

    def train(model, loader, opt, crit, epoch):
        for x, y in loader:
            running_loss = 0.0  # expect: metric-from-last-batch-only
            loss = crit(model(x), y)
            opt.zero_grad()
            loss.backward()
            opt.step()
            running_loss += loss.item()
        print(epoch, running_loss / len(loader))

    def transcribe(asr, utterances):
        for feats in utterances:
            hyps = []  # expect: metric-from-last-batch-only
            hyps.extend(asr.decode(feats))
        return hyps
    """
    check(src, {RULE})


def test_negative_per_batch_sums_and_periodic_resets():
    src = """
    def per_batch_inner(model, loader):
        total = 0.0
        for batch in loader:
            batch_loss = 0.0
            for sample in batch:
                batch_loss += model.loss(sample)
            total += batch_loss
        return total

    def grad_accum(model, loader, opt):
        for batch in loader:
            step_loss = 0.0
            for micro in batch.split(4):
                part = model(micro).mean()
                part.backward()
                step_loss += part.item()
            opt.step()
        print("last step loss", step_loss)

    def logged_each(loader, writer):
        for i, batch in enumerate(loader):
            seen = 0
            seen += len(batch)
            writer.add_scalar("seen", seen, i)
        return seen

    def periodic(model, loader):
        running_loss = 0.0
        for i, (x, y) in enumerate(loader):
            running_loss += model(x, y).item()
            if i % 100 == 99:
                print(running_loss / 100)
                running_loss = 0.0
        return running_loss
    """
    check(src, {RULE})


def test_total_never_read_and_the_last_value_used_instead():
    src = """
    def epoch_trainer(model, loader, optimizer, criterion):
        train_loss, counter = 0, 0
        for x, y in loader:
            optimizer.zero_grad()
            loss = criterion(model(x), y)
            loss.backward()
            optimizer.step()
            train_loss += loss
            counter += 1
        loss = (loss / counter).cpu().data.numpy()  # expect: metric-from-last-batch-only
        return loss

    def the_total_is_used(model, loader, optimizer, criterion):
        train_loss, counter = 0, 0
        for x, y in loader:
            loss = criterion(model(x), y)
            train_loss += loss.item()
            counter += 1
        loss = train_loss / counter
        return loss

    def total_kept_for_later(model, loader, history):
        total = 0.0
        for x, y in loader:
            err = float(model.error(x, y))
            total += err
        history.append(total)
        scaled = err * 2
        return scaled
    """
    check(src, {RULE})
