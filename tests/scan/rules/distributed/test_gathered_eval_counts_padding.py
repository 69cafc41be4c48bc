"""The ``gathered-eval-counts-padding`` rule (``mlsleuth/scan/rules/distributed/gathered_eval_counts_padding.py``)."""

from __future__ import annotations

from scan.helpers import check, check_project

RULE = {"gathered-eval-counts-padding"}


def test_accelerate_gather_in_the_evaluation_loop():
    src = """
        import torch
        from accelerate import Accelerator

        def evaluate(model, loader, accelerator, metric):
            model.eval()
            for batch in loader:
                with torch.no_grad():
                    out = model(**batch)
                predictions, references = accelerator.gather((out.logits.argmax(-1), batch["labels"]))  # expect: gathered-eval-counts-padding
                metric.add_batch(predictions=predictions, references=references)
            return metric.compute()

        def main(model, dl):
            accelerator = Accelerator()
            model, dl = accelerator.prepare(model, dl)
            return evaluate(model, dl, accelerator, None)
        """
    check(src, RULE)


def test_all_gather_helper_over_a_padding_sampler(tmp_path):
    check_project(
        tmp_path,
        {
            "comm.py": """
                import torch
                import torch.distributed as dist

                def gather_all(t):
                    out = [torch.zeros_like(t) for _ in range(dist.get_world_size())]
                    dist.all_gather(out, t)
                    return torch.cat(out)
                """,
            "loaders.py": """
                from torch.utils.data import DataLoader, DistributedSampler

                def test_loader(ds, bs):
                    return DataLoader(ds, batch_size=bs, sampler=DistributedSampler(ds, shuffle=False))
                """,
            "run.py": """
                import torch
                from comm import gather_all
                from loaders import test_loader

                @torch.no_grad()
                def score(net, loader):
                    net.eval()
                    hits = []
                    for x, y in loader:
                        hits.append(net(x).argmax(1) == y)
                    hits = gather_all(torch.cat(hits))  # expect: gathered-eval-counts-padding
                    return hits.float().mean().item()

                def main(net, ds):
                    return score(net, test_loader(ds, 256))
                """,
        },
        RULE,
    )


def test_padding_removed_or_absent_stays_silent():
    src = """
        import torch
        import torch.distributed as dist
        from accelerate import Accelerator
        from torch.utils.data import DataLoader, DistributedSampler

        def evaluate_for_metrics(model, loader, accelerator):
            model.eval()
            preds = []
            for batch in loader:
                preds.append(accelerator.gather_for_metrics(model(**batch).logits.argmax(-1)))
            return torch.cat(preds)

        def evaluate_truncated(model, eval_dataloader, accelerator, eval_dataset):
            model.eval()
            losses = []
            for batch in eval_dataloader:
                with torch.no_grad():
                    loss = model(**batch).loss
                losses.append(accelerator.gather(loss.repeat(batch["input_ids"].shape[0])))
            losses = torch.cat(losses)[: len(eval_dataset)]
            return losses.mean()

        def train_epoch(model, train_loader, accelerator, opt):
            for batch in train_loader:
                loss = model(**batch).loss
                accelerator.backward(loss)
                opt.step()
                accelerator.print(accelerator.gather(loss).mean())

        @torch.no_grad()
        def validate(model, ds):
            loader = DataLoader(ds, batch_size=64, sampler=DistributedSampler(ds, shuffle=False, drop_last=True))
            model.eval()
            outs = []
            for x, y in loader:
                outs.append(model(x).argmax(1) == y)
            mine = torch.cat(outs)
            parts = [torch.empty_like(mine) for _ in range(dist.get_world_size())]
            dist.all_gather(parts, mine)
            return torch.cat(parts).float().mean()
        """
    check(src, RULE)


def test_a_training_loss_gathered_for_the_log_is_fine():
    # the gather inside the update loop collects one summed loss per process for logging; the evaluation
    # at the end of each epoch still gathers padded predictions and is reported
    check(
        """
        import torch
        from accelerate import Accelerator

        def training_function(model, opt, train_dl, eval_dl, epochs, accum):
            accelerator = Accelerator()
            model, opt, train_dl, eval_dl = accelerator.prepare(model, opt, train_dl, eval_dl)
            batches = iter(train_dl)
            for epoch in range(epochs):
                model.train()
                for update in range(len(train_dl) // accum):
                    group = [next(batches) for _ in range(accum)]
                    losses = []
                    for batch in group:
                        loss = model(**batch).loss
                        accelerator.backward(loss / accum)
                        losses.append(loss.detach())
                    opt.step()
                    opt.zero_grad()
                    mean_loss = accelerator.gather(sum(losses)).mean().item() / accum
                    accelerator.print(epoch, update, mean_loss)
                model.eval()
                preds, refs = [], []
                for batch in eval_dl:
                    with torch.no_grad():
                        preds.append(model(**batch).logits.argmax(-1))
                    refs.append(batch["labels"])
                preds = accelerator.gather(torch.cat(preds))  # expect: gathered-eval-counts-padding
                refs = accelerator.gather(torch.cat(refs))
                accelerator.print((preds == refs).float().mean().item())
        """,
        RULE,
    )
