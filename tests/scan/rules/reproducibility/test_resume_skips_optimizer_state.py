"""The ``resume-skips-optimizer-state`` rule (``mlsleuth/scan/rules/reproducibility/resume_skips_optimizer_state.py``)."""

from __future__ import annotations

from scan.helpers import check, findings

RS = {"resume-skips-optimizer-state"}


def test_resume_restores_model_and_epoch_only():
    check(
        """
        import os
        import torch

        def main(args, model, loader):
            optimizer = torch.optim.Adam(model.parameters(), lr=args.lr)
            start_epoch = 0
            if args.resume and os.path.isfile(args.resume):
                checkpoint = torch.load(args.resume, map_location="cpu")
                model.load_state_dict(checkpoint["state_dict"])  # expect: resume-skips-optimizer-state
                start_epoch = checkpoint["epoch"] + 1
            for epoch in range(start_epoch, args.epochs):
                train_one_epoch(model, loader, optimizer)
                torch.save({"epoch": epoch, "state_dict": model.state_dict(),
                            "optimizer": optimizer.state_dict()}, "checkpoint.pth")
        """,
        RS,
    )


def test_payload_through_a_name_and_global_step_counter():
    check(
        """
        import torch

        def save(model, opt, step, path):
            state = {"model": model.state_dict(), "opt": opt.state_dict(), "global_step": step}
            torch.save(state, path)

        def resume(model, path):
            ckpt = torch.load(path)
            model.load_state_dict(ckpt["model"], strict=True)  # expect: resume-skips-optimizer-state
            return ckpt["global_step"]
        """,
        RS,
    )


def test_message():
    got = findings(
        """
        import torch
        torch.save({"net": net.state_dict(), "optim": optim.state_dict(), "epoch": ep}, "c.pt")
        ck = torch.load("c.pt")
        net.load_state_dict(ck["net"])
        first = ck["epoch"]
        """,
        "resume-skips-optimizer-state",
    )
    assert len(got) == 1 and "'optim'" in got[0].message and "ck['epoch']" in got[0].message


def test_full_resume_or_weights_only_loads_are_fine():
    check(
        """
        import torch

        def a(model, optimizer, path, epoch):
            torch.save({"epoch": epoch, "model": model.state_dict(), "optimizer": optimizer.state_dict()}, path)
            ckpt = torch.load(path)
            model.load_state_dict(ckpt["model"])
            optimizer.load_state_dict(ckpt["optimizer"])
            return ckpt["epoch"] + 1

        def b(model, path):
            ckpt = torch.load(path)
            model.load_state_dict(ckpt["model"])  # evaluation: no counter read
            return model
        """,
        RS,
    )


def test_weights_only_checkpoints_are_fine():
    check(
        """
        import torch

        def train(model, optimizer, epoch):
            torch.save({"model": model.state_dict(), "epoch": epoch}, "w.pt")
            ckpt = torch.load("w.pt")
            model.load_state_dict(ckpt["model"])
            start = ckpt["epoch"]
        """,
        RS,
    )
