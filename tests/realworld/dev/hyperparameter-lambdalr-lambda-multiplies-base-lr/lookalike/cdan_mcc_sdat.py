"""CDAN + MCC domain adaptation with a sharpness-aware classifier (SDAT-style)."""
import argparse

import torch
from torch import nn
import torch.nn.functional as F
from torch.optim import SGD
from torch.optim.lr_scheduler import LambdaLR
from torch.utils.data import DataLoader, TensorDataset


class ImageClassifier(nn.Module):
    def __init__(self, in_dim=512, num_classes=31, bottleneck_dim=256):
        super().__init__()
        self.backbone = nn.Sequential(nn.Linear(in_dim, 1024), nn.ReLU(), nn.Linear(1024, 512), nn.ReLU())
        self.bottleneck = nn.Sequential(nn.Linear(512, bottleneck_dim), nn.BatchNorm1d(bottleneck_dim), nn.ReLU())
        self.head = nn.Linear(bottleneck_dim, num_classes)

    def forward(self, x):
        f = self.bottleneck(self.backbone(x))
        return self.head(f), f

    def get_parameters(self, base_lr=1.0):
        """Pretrained backbone gets a 10x smaller learning rate than the new layers."""
        return [
            {"params": self.backbone.parameters(), "lr": 0.1 * base_lr},
            {"params": self.bottleneck.parameters(), "lr": 1.0 * base_lr},
            {"params": self.head.parameters(), "lr": 1.0 * base_lr},
        ]


class DomainDiscriminator(nn.Module):
    def __init__(self, in_feature, hidden_size=1024):
        super().__init__()
        self.net = nn.Sequential(nn.Linear(in_feature, hidden_size), nn.ReLU(), nn.Dropout(0.5),
                                 nn.Linear(hidden_size, hidden_size), nn.ReLU(), nn.Dropout(0.5),
                                 nn.Linear(hidden_size, 1))

    def forward(self, x):
        return self.net(x)

    def get_parameters(self, base_lr=1.0):
        return [{"params": self.parameters(), "lr": base_lr}]


class GradientReverse(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x, coeff):
        ctx.coeff = coeff
        return x.view_as(x)

    @staticmethod
    def backward(ctx, grad_output):
        return -ctx.coeff * grad_output, None


def mcc_loss(logits, temperature=2.5):
    b, c = logits.shape
    probs = F.softmax(logits / temperature, dim=1)
    weight = 1 + torch.exp(-(-(probs * torch.log(probs + 1e-5)).sum(1)))
    weight = (b * weight / weight.sum()).unsqueeze(1)
    cov = (probs * weight).t() @ probs
    cov = cov / cov.sum(dim=1, keepdim=True)
    return (cov.sum() - cov.trace()) / c


def cdan_loss(discriminator, g_s, f_s, g_t, f_t, coeff=1.0):
    def feat(g, f):
        return torch.bmm(F.softmax(g, 1).detach().unsqueeze(2), f.unsqueeze(1)).flatten(1)

    h = torch.cat([feat(g_s, f_s), feat(g_t, f_t)], dim=0)
    d = discriminator(GradientReverse.apply(h, coeff))
    labels = torch.cat([torch.ones(g_s.size(0), 1), torch.zeros(g_t.size(0), 1)])
    return F.binary_cross_entropy_with_logits(d, labels)


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--lr", type=float, default=0.01)
    parser.add_argument("--lr-gamma", type=float, default=0.001)
    parser.add_argument("--lr-decay", type=float, default=0.75)
    parser.add_argument("--momentum", type=float, default=0.9)
    parser.add_argument("--wd", type=float, default=1e-3)
    parser.add_argument("--iters-per-epoch", type=int, default=500)
    parser.add_argument("--epochs", type=int, default=20)
    parser.add_argument("--trade-off", type=float, default=1.0)
    args = parser.parse_args()

    src = DataLoader(TensorDataset(torch.randn(2000, 512), torch.randint(0, 31, (2000,))), batch_size=32,
                     shuffle=True, drop_last=True)
    tgt = DataLoader(TensorDataset(torch.randn(2000, 512) + 0.5), batch_size=32, shuffle=True, drop_last=True)

    classifier = ImageClassifier()
    domain_discri = DomainDiscriminator(256 * 31)

    # group lrs are relative factors (0.1 / 1.0); the scheduler below multiplies in args.lr
    optimizer = SGD(classifier.get_parameters() + domain_discri.get_parameters(),
                    args.lr, momentum=args.momentum, weight_decay=args.wd, nesterov=True)
    lr_scheduler = LambdaLR(optimizer, lambda x: args.lr * (1. + args.lr_gamma * float(x)) ** (-args.lr_decay))

    src_iter, tgt_iter = iter(src), iter(tgt)
    for epoch in range(args.epochs):
        classifier.train()
        domain_discri.train()
        for i in range(args.iters_per_epoch):
            try:
                x_s, y_s = next(src_iter)
            except StopIteration:
                src_iter = iter(src)
                x_s, y_s = next(src_iter)
            try:
                (x_t,) = next(tgt_iter)
            except StopIteration:
                tgt_iter = iter(tgt)
                (x_t,) = next(tgt_iter)

            y, f = classifier(torch.cat([x_s, x_t]))
            y_s_out, y_t_out = y.chunk(2)
            f_s, f_t = f.chunk(2)
            loss = F.cross_entropy(y_s_out, y_s) + mcc_loss(y_t_out) \
                + args.trade_off * cdan_loss(domain_discri, y_s_out, f_s, y_t_out, f_t)

            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
            lr_scheduler.step()
        print(f"epoch {epoch} loss {loss.item():.4f} lr {lr_scheduler.get_last_lr()}")


if __name__ == "__main__":
    main()
