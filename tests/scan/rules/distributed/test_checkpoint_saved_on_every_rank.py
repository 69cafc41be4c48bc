"""The ``checkpoint-saved-on-every-rank`` rule (``mlsleuth/scan/rules/distributed/checkpoint_saved_on_every_rank.py``)."""

from __future__ import annotations

from scan.helpers import check, check_project

RULE = {"checkpoint-saved-on-every-rank"}


def test_unguarded_save_in_a_ddp_loop():
    src = """
        import torch
        import torch.distributed as dist
        from torch.nn.parallel import DistributedDataParallel as DDP

        def train(model, loader, opt, epochs, path):
            model = DDP(model)
            for epoch in range(epochs):
                loader.sampler.set_epoch(epoch)
                for x, y in loader:
                    loss = model(x, y)
                    opt.zero_grad()
                    loss.backward()
                    opt.step()
                torch.save(model.module.state_dict(), path)  # expect: checkpoint-saved-on-every-rank
        """
    check(src, RULE)


def test_helper_in_another_module_saves_without_a_guard(tmp_path):
    check_project(
        tmp_path,
        {
            "ckpt.py": """
                import os
                import torch

                def write_checkpoint(state, folder):
                    torch.save(state, os.path.join(folder, "last.pt"))
                """,
            "train.py": """
                import torch.distributed as dist
                from ckpt import write_checkpoint

                def loop(model, opt, loader, folder):
                    for step, batch in enumerate(loader):
                        model(batch).backward()
                        opt.step()
                        opt.zero_grad()
                        if step % 100 == 0:
                            write_checkpoint({"model": model.state_dict()}, folder)  # expect: checkpoint-saved-on-every-rank
                """,
        },
        RULE,
    )


def test_rank_guards_rank_paths_and_single_process_code_stay_silent():
    src = """
        import torch
        import torch.distributed as dist

        def is_main_process():
            return dist.get_rank() == 0

        def save_on_master(state, path):
            if is_main_process():
                torch.save(state, path)

        def train(model, loader, opt, args):
            for epoch in range(args.epochs):
                loader.sampler.set_epoch(epoch)
                for i, (x, y) in enumerate(loader):
                    model(x, y).backward()
                    opt.step()
                    if args.local_rank in (-1, 0) and i % 100 == 0:
                        torch.save(model.state_dict(), "a.pt")
                    if dist.get_rank() == 0:
                        torch.save(model.state_dict(), "b.pt")
                    save_on_master(model.state_dict(), "c.pt")
                    torch.save(opt.state_dict(), f"opt_rank{dist.get_rank()}.pt")

        def worker(rank, model, loader, opt):
            if rank != 0:
                return
            for x, y in loader:
                model(x, y).backward()
                opt.step()
                torch.save(model.state_dict(), "d.pt")
        """
    check(src, RULE)
    plain = """
        import torch

        def train(model, loader, opt):
            for x, y in loader:
                model(x, y).backward()
                opt.step()
                torch.save(model.state_dict(), "e.pt")
        """
    check(plain, RULE)
