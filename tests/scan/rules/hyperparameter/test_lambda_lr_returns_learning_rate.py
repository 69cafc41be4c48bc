"""The ``lambda-lr-returns-learning-rate`` rule (``mlsleuth/scan/rules/hyperparameter/lambda_lr_returns_learning_rate.py``)."""

from __future__ import annotations

from scan.helpers import check

RULE = {"lambda-lr-returns-learning-rate"}


def test_lambdas_that_multiply_the_base_lr_again():
    src = """
    import torch
    from torch.optim import SGD, AdamW
    from torch.optim.lr_scheduler import LambdaLR
    import torch.optim.lr_scheduler as sched

    def train(args, model, net):
        opt = SGD(model.parameters(), lr=args.lr, momentum=0.9)
        s1 = LambdaLR(opt, lambda x: args.lr * (1. + args.lr_gamma * float(x)) ** (-args.lr_decay))  # expect: lambda-lr-returns-learning-rate

        groups = net.get_parameters(base_lr=args.lr) + [{"params": model.parameters(), "lr": args.lr}]
        opt2 = SGD(groups, args.lr, momentum=0.9)
        s2 = sched.LambdaLR(opt2, lr_lambda=lambda e: args.lr * 0.95 ** e)  # expect: lambda-lr-returns-learning-rate

        no_decay = ["bias", "LayerNorm.weight"]
        grouped = [
            {"params": [p for n, p in model.named_parameters() if not any(nd in n for nd in no_decay)], "weight_decay": 0.01},
            {"params": [p for n, p in model.named_parameters() if any(nd in n for nd in no_decay)], "weight_decay": 0.0},
        ]
        opt3 = AdamW(grouped, lr=args.learning_rate)
        s3 = LambdaLR(opt3, lambda step: min((step + 1) / 1000, 1.0) * args.learning_rate)  # expect: lambda-lr-returns-learning-rate
        return s1, s2, s3

    def make(model, base_lr=3e-4, warmup=500):
        optimizer = torch.optim.Adam(model.parameters(), lr=base_lr)

        def lr_lambda(step):
            if step < warmup:
                return base_lr * step / warmup  # expect: lambda-lr-returns-learning-rate
            return base_lr

        return LambdaLR(optimizer, lr_lambda)

    class Module:
        def configure_optimizers(self):
            opt = torch.optim.AdamW(self.parameters(), lr=self.hparams.lr)
            sch = LambdaLR(opt, lambda s: self.hparams.lr * 0.5 ** (s // 10))  # expect: lambda-lr-returns-learning-rate
            return [opt], [sch]
    """
    check(src, RULE)


def test_factors_and_relative_group_rates_are_fine():
    src = """
    import torch
    from torch.optim import SGD
    from torch.optim.lr_scheduler import LambdaLR

    def train(args, model, net):
        opt = SGD(model.parameters(), lr=args.lr, momentum=0.9)
        s1 = LambdaLR(opt, lambda x: (1. + args.lr_gamma * float(x)) ** (-args.lr_decay))

        # groups carry relative factors; the lambda brings in the absolute rate
        opt2 = SGD(net.get_parameters() + [{"params": model.parameters(), "lr": 1.0}], args.lr, momentum=0.9)
        s2 = LambdaLR(opt2, lambda x: args.lr * (1. + 0.001 * x) ** -0.75)

        opt3 = SGD([{"params": net.head.parameters(), "lr": 1.0}, {"params": net.body.parameters(), "lr": 0.1}], lr=args.lr)
        s3 = LambdaLR(opt3, lambda x: args.lr * 0.9 ** x)

        opt4 = SGD(model.parameters(), lr=0.1)
        s4 = LambdaLR(opt4, lambda e: 0.1 if e > 30 else 1.0)

        opt5 = SGD(model.parameters(), lr=args.lr)
        s5 = LambdaLR(opt5, lambda e: args.min_lr / args.lr + (1 - args.min_lr / args.lr) * 0.5 ** e)
        return s1, s2, s3, s4, s5

    def warmup_cosine(optimizer, warmup, total):
        def lr_lambda(step):
            if step < warmup:
                return step / warmup
            return 0.5 * (1 + torch.cos(torch.tensor(3.14159 * step / total))).item()
        return LambdaLR(optimizer, lr_lambda)
    """
    check(src, RULE)
