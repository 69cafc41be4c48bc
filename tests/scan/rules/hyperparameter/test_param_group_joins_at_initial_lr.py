"""The ``param-group-joins-at-initial-lr`` rule (``mlsleuth/scan/rules/hyperparameter/param_group_joins_at_initial_lr.py``)."""

from __future__ import annotations

from scan.helpers import check, check_project, findings

PG = {"param-group-joins-at-initial-lr"}


def test_unfreeze_epoch_with_a_step_scheduler_vision():
    check(
        """
        import torch
        import torchvision

        model = torchvision.models.resnet50(weights="DEFAULT")
        model.requires_grad_(False)
        model.fc = torch.nn.Linear(2048, 10)
        opt = torch.optim.SGD(model.fc.parameters(), lr=0.1, momentum=0.9)
        sched = torch.optim.lr_scheduler.StepLR(opt, step_size=3, gamma=0.1)
        for epoch in range(20):
            if epoch == 10:
                model.layer4.requires_grad_(True)
                opt.add_param_group({"params": model.layer4.parameters()})  # expect: param-group-joins-at-initial-lr
            train_one_epoch(model, opt)
            sched.step()
        """,
        PG,
    )


def test_warmup_scheduler_and_config_lr_nlp():
    check(
        """
        from torch.optim import AdamW
        from transformers import get_linear_schedule_with_warmup

        def train(model, loader, args):
            optimizer = AdamW(model.classifier.parameters(), lr=args.learning_rate)
            scheduler = get_linear_schedule_with_warmup(optimizer, 100, 10000)
            for step, batch in enumerate(loader):
                if step == args.unfreeze_step:
                    model.bert.requires_grad_(True)
                    optimizer.add_param_group({"params": model.bert.parameters(), "lr": args.learning_rate})  # expect: param-group-joins-at-initial-lr
                model(**batch).loss.backward()
                optimizer.step()
                scheduler.step()
                optimizer.zero_grad()
        """,
        PG,
    )


def test_manual_decay_then_second_phase_rl():
    check(
        """
        import torch

        LR = 3e-4

        def main(policy, critic, env):
            opt = torch.optim.Adam(policy.parameters(), lr=LR)
            for it in range(1000):
                update(policy, env, opt)
                for g in opt.param_groups:
                    g["lr"] = g["lr"] * 0.999
            opt.add_param_group(dict(params=critic.parameters(), lr=LR))  # expect: param-group-joins-at-initial-lr
            for it in range(1000):
                update(policy, env, opt)
        """,
        PG,
    )


def test_helper_adds_group_and_helper_decays_in_another_module(tmp_path):
    check_project(
        tmp_path,
        {
            "finetune.py": """
                def unfreeze(module, optimizer, cfg):
                    for p in module.parameters():
                        p.requires_grad = True
                    optimizer.add_param_group({"params": list(module.parameters()), "lr": cfg["lr"]})  # expect: param-group-joins-at-initial-lr

                def decay(optimizer, gamma):
                    for group in optimizer.param_groups:
                        group["lr"] *= gamma
            """,
            "train.py": """
                import torch
                from finetune import decay, unfreeze

                def main(model, loader, cfg, run_epoch):
                    model.encoder.requires_grad_(False)
                    optimizer = torch.optim.SGD(model.head.parameters(), lr=cfg["lr"])
                    for epoch in range(cfg["epochs"]):
                        if epoch == cfg["unfreeze_epoch"]:
                            unfreeze(model.encoder, optimizer, cfg)
                        run_epoch(model, loader, optimizer)
                        decay(optimizer, cfg["gamma"])
            """,
        },
        PG,
    )


def test_current_lr_and_setup_groups_are_silent():
    check(
        """
        import torch

        def main(model, loader, cfg, run_epoch):
            opt = torch.optim.SGD(model.head.parameters(), lr=cfg.lr)
            for name in ("neck", "adapter"):
                opt.add_param_group({"params": getattr(model, name).parameters(), "lr": cfg.lr})
            sched = torch.optim.lr_scheduler.ExponentialLR(opt, 0.9)
            for epoch in range(cfg.epochs):
                if epoch == 5:
                    opt.add_param_group({"params": model.backbone.parameters(), "lr": opt.param_groups[0]["lr"]})
                if epoch == 8:
                    current = sched.get_last_lr()[0] / 10
                    opt.add_param_group({"params": model.stem.parameters(), "lr": current})
                run_epoch(model, loader, opt)
                sched.step()
        """,
        PG,
    )


def test_absolute_schedule_and_other_optimizer_are_silent():
    check(
        """
        import torch

        def set_epoch_lr(optimizer, epoch, gamma):
            for group in optimizer.param_groups:
                group["lr"] = group["initial_lr"] * gamma ** epoch

        def main(model, disc, cfg, run_epoch):
            opt = torch.optim.SGD(model.head.parameters(), lr=cfg["lr"])
            opt_d = torch.optim.Adam(disc.parameters(), lr=1e-4)
            sched_d = torch.optim.lr_scheduler.StepLR(opt_d, 10)
            for epoch in range(cfg["epochs"]):
                if epoch == 6:
                    opt.add_param_group({"params": model.backbone.parameters(), "lr": cfg["lr"]})
                set_epoch_lr(opt, epoch, 0.9)
                run_epoch(model, opt)
                sched_d.step()
            opt.add_param_group({"params": model.extra.parameters(), "lr": cfg["lr"], "initial_lr": cfg["lr"]})
        """,
        PG,
    )


def test_message_names_the_decay():
    [f] = findings(
        """
        import torch

        opt = torch.optim.SGD(head.parameters(), lr=0.1)
        sched = torch.optim.lr_scheduler.StepLR(opt, 1)
        for epoch in range(5):
            if epoch == 3:
                opt.add_param_group({"params": body.parameters()})
            sched.step()
        """,
        "param-group-joins-at-initial-lr",
    )
    assert "StepLR" in f.message and "initial" in f.message
