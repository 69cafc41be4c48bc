"""The ``shard-metric-logged-as-global`` rule (``mlsleuth/scan/rules/distributed/shard_metric_logged_as_global.py``)."""

from __future__ import annotations

from scan.helpers import check, check_project, findings

RULE = "shard-metric-logged-as-global"

HEAD = """
    import torch
    import torch.distributed as dist
    from torch.utils.data import DataLoader
    from torch.utils.data.distributed import DistributedSampler
"""


def test_validation_accuracy_of_rank_0s_shard_printed_as_the_accuracy():
    src = """
    import torch
    import torch.distributed as dist
    from torch.utils.data import DataLoader
    from torch.utils.data.distributed import DistributedSampler

    def main(model, train_set, val_set, opt, epochs):
        rank = dist.get_rank()
        val_loader = DataLoader(val_set, batch_size=64, sampler=DistributedSampler(val_set, shuffle=False))
        for epoch in range(epochs):
            model.eval()
            correct, total = 0, 0
            with torch.no_grad():
                for x, y in val_loader:
                    correct += (model(x).argmax(1) == y).sum().item()
                    total += y.numel()
            acc = correct / total
            if rank == 0:
                print(f"epoch {epoch} val acc {acc:.4f}")  # expect: shard-metric-logged-as-global
    """
    (f,) = findings(src, RULE)
    check(src, {RULE})
    assert "acc" in f.message and "rank == 0" in f.message


def test_metric_returned_by_an_evaluate_helper_and_logged_by_the_main_process():
    src = HEAD + """
    import wandb

    def evaluate(model, loader):
        model.eval()
        total_loss, n = 0.0, 0
        for x, y in loader:
            total_loss += torch.nn.functional.cross_entropy(model(x), y, reduction="sum").item()
            n += len(y)
        return total_loss / n

    def main(model, val_set, is_main_process):
        sampler = DistributedSampler(val_set, shuffle=False)
        val_loader = DataLoader(val_set, batch_size=32, sampler=sampler)
        val_loss = evaluate(model, val_loader)
        if is_main_process:
            wandb.log({"val/loss": val_loss})  # expect: shard-metric-logged-as-global
    """
    check(src, {RULE})


def test_average_meters_of_one_shard_returned_and_printed_by_the_main_process():
    src = HEAD + """
    class AverageMeter:
        def __init__(self):
            self.sum, self.count = 0.0, 0

        def update(self, val, n=1):
            self.sum += val * n
            self.count += n

        @property
        def avg(self):
            return self.sum / max(self.count, 1)

    def validate(val_loader, model, criterion):
        losses, top1 = AverageMeter(), AverageMeter()
        model.eval()
        with torch.no_grad():
            for images, target in val_loader:
                output = model(images)
                losses.update(criterion(output, target).item(), images.size(0))
                top1.update((output.argmax(1) == target).float().mean().item() * 100, images.size(0))
        return top1.avg

    def main_worker(rank, model, criterion, val_set):
        val_sampler = DistributedSampler(val_set, shuffle=False)
        val_loader = DataLoader(val_set, batch_size=256, sampler=val_sampler)
        acc1 = validate(val_loader, model, criterion)
        if rank % 8 == 0:
            print(f" * Acc@1 {acc1:.3f}")  # expect: shard-metric-logged-as-global
    """
    check(src, {RULE})


def test_metric_all_reduced_before_rank_0_prints_it():
    src = HEAD + """
    def main(model, val_set, rank, world_size):
        val_loader = DataLoader(val_set, batch_size=64, sampler=DistributedSampler(val_set, shuffle=False))
        correct, total = 0, 0
        with torch.no_grad():
            for x, y in val_loader:
                correct += (model(x).argmax(1) == y).sum().item()
                total += y.numel()
        counts = torch.tensor([correct, total], dtype=torch.float64)
        dist.all_reduce(counts)
        if rank == 0:
            print(f"val acc {counts[0] / counts[1]:.4f}")
    """
    check(src, {RULE})


def test_accelerate_gather_for_metrics_and_a_reduce_helper_are_reductions():
    accelerate = HEAD + """
    def evaluate(model, loader, accelerator):
        preds, labels = [], []
        with torch.no_grad():
            for x, y in loader:
                p, t = accelerator.gather_for_metrics((model(x).argmax(1), y))
                preds.append(p)
                labels.append(t)
        return (torch.cat(preds) == torch.cat(labels)).float().mean()

    def main(model, val_set, accelerator):
        val_loader = DataLoader(val_set, sampler=DistributedSampler(val_set))
        acc = evaluate(model, val_loader, accelerator)
        if accelerator.is_main_process:
            print(acc)
    """
    helper = HEAD + """
    def reduce_mean(t):
        t = t.clone()
        dist.all_reduce(t)
        return t / dist.get_world_size()

    def main(model, val_set, rank):
        val_loader = DataLoader(val_set, sampler=DistributedSampler(val_set))
        losses = []
        with torch.no_grad():
            for x, y in val_loader:
                losses.append(torch.nn.functional.mse_loss(model(x), y))
        val_loss = reduce_mean(torch.stack(losses).mean())
        if rank == 0:
            print("val loss", val_loss.item())
    """
    check(accelerate, {RULE})
    check(helper, {RULE})


def test_torchmetrics_and_full_dataset_evaluation_on_rank_0_are_fine():
    torchmetrics_src = HEAD + """
    import torchmetrics

    def main(model, val_set, rank):
        metric = torchmetrics.Accuracy(task="multiclass", num_classes=10)
        val_loader = DataLoader(val_set, sampler=DistributedSampler(val_set, shuffle=False))
        with torch.no_grad():
            for x, y in val_loader:
                metric.update(model(x), y)
        acc = metric.compute()
        if rank == 0:
            print(f"val acc {acc:.4f}")
    """
    full = HEAD + """
    def main(model, train_set, val_set, rank):
        train_loader = DataLoader(train_set, sampler=DistributedSampler(train_set))
        val_loader = DataLoader(val_set, batch_size=256)  # every sample, on rank 0 only
        if rank == 0:
            correct = 0
            with torch.no_grad():
                for x, y in val_loader:
                    correct += (model(x).argmax(1) == y).sum().item()
            print("val acc", correct / len(val_set))
    """
    check(torchmetrics_src, {RULE})
    check(full, {RULE})


def test_progress_lines_and_values_labelled_as_one_ranks_are_not_flagged():
    progress = HEAD + """
    def train(model, train_set, opt, rank):
        loader = DataLoader(train_set, sampler=DistributedSampler(train_set))
        for epoch in range(3):
            for step, (x, y) in enumerate(loader):
                opt.zero_grad()
                loss = torch.nn.functional.mse_loss(model(x), y)
                loss.backward()
                opt.step()
                if rank == 0 and step % 50 == 0:
                    print(f"epoch {epoch} step {step} loss {loss.item():.4f}")
    """
    labelled = HEAD + """
    def main(model, val_set, rank):
        val_loader = DataLoader(val_set, sampler=DistributedSampler(val_set, shuffle=False))
        correct = 0
        with torch.no_grad():
            for x, y in val_loader:
                correct += (model(x).argmax(1) == y).sum().item()
        if rank == 0:
            print(f"rank 0 shard accuracy: {correct / len(val_loader.sampler):.3f}")
    """
    check(progress, {RULE})
    check(labelled, {RULE})


def test_a_training_loss_summed_over_the_shard_is_left_alone():
    # The epoch's mean training loss of one rank: an unbiased estimate over the rank's samples of the same
    # model; noisy, but not a mislabelled evaluation result (see refs/framework_ddp_torchrun.md).
    src = HEAD + """
    def train(model, train_set, opt, rank):
        loader = DataLoader(train_set, sampler=DistributedSampler(train_set))
        for epoch in range(3):
            running = 0.0
            for x, y in loader:
                opt.zero_grad()
                loss = torch.nn.functional.mse_loss(model(x), y)
                loss.backward()
                opt.step()
                running += loss.item()
            if rank == 0:
                print(f"epoch {epoch} loss {running / len(loader):.4f}")
    """
    check(src, {RULE})


_TRAINER = """
import math
import torch
import torch.distributed as dist


class LMTrainer:
    def __init__(self, model, valid_iter, args):
        self.model, self.valid_iter, self.args = model, valid_iter, args
        self.rank = dist.get_rank()

    @torch.no_grad()
    def evaluate(self):
        total_loss, total_len = 0.0, 0
        for data, target in self.valid_iter:
            total_loss += self.model(data, target).item() * target.numel()
            total_len += target.numel()
        return total_loss / total_len  # expect: shard-metric-logged-as-global

    def fit(self):
        val_loss = self.evaluate()
        if self.rank == 0:
            print(f"valid loss {val_loss:.3f} | ppl {math.exp(val_loss):.2f}")
"""

_MAIN = """
import torch
import torch.distributed as dist
from trainer import LMTrainer


class Stream:
    def __init__(self, tokens, bsz):
        self.tokens, self.bsz = tokens, bsz


def main(model, args):
    rank, world = dist.get_rank(), dist.get_world_size()
    corpus = torch.load(args.data)
    valid_tokens = corpus["valid"].chunk(world)[rank]
    LMTrainer(model, Stream(valid_tokens, 10), args).fit()
"""


def test_hand_sharded_validation_passed_through_a_constructor(tmp_path):
    check_project(tmp_path, {"trainer.py": _TRAINER, "main.py": _MAIN}, {RULE})


def test_hand_sharded_validation_whole_split_or_reduced_is_fine(tmp_path):
    whole = _MAIN.replace('corpus["valid"].chunk(world)[rank]', 'corpus["valid"]')
    check_project(tmp_path / "whole", {"trainer.py": _TRAINER.replace("  # expect: shard-metric-logged-as-global", ""),
                                       "main.py": whole}, {RULE})
    reduced = _TRAINER.replace("  # expect: shard-metric-logged-as-global", "").replace(
        "        return total_loss / total_len",
        "        stats = torch.tensor([total_loss, total_len])\n        dist.all_reduce(stats)\n        return (stats[0] / stats[1]).item()")
    check_project(tmp_path / "reduced", {"trainer.py": reduced, "main.py": _MAIN}, {RULE})
