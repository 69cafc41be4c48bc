import math

import torch
import torch.nn as nn

torch.backends.cuda.matmul.allow_tf32 = False


class ExactGP(nn.Module):
    def __init__(self, train_x, train_y):
        super().__init__()
        self.train_x, self.train_y = train_x, train_y
        self.log_lengthscale = nn.Parameter(torch.zeros(train_x.shape[-1], device=train_x.device))
        self.log_outputscale = nn.Parameter(torch.zeros((), device=train_x.device))
        self.log_noise = nn.Parameter(torch.tensor(-4.0, device=train_x.device))

    def kernel(self, a, b):
        a = a / self.log_lengthscale.exp()
        b = b / self.log_lengthscale.exp()
        sq = (a * a).sum(-1, keepdim=True) - 2 * a @ b.T + (b * b).sum(-1)
        return self.log_outputscale.exp() * torch.exp(-0.5 * sq.clamp_min(0))

    def neg_mll(self):
        n = self.train_x.shape[0]
        K = self.kernel(self.train_x, self.train_x) + self.log_noise.exp() * torch.eye(n, device=self.train_x.device)
        L = torch.linalg.cholesky(K)
        alpha = torch.cholesky_solve(self.train_y.unsqueeze(-1), L)
        return 0.5 * (self.train_y @ alpha.squeeze(-1)) + L.diagonal().log().sum() + 0.5 * n * math.log(2 * math.pi)


def fit_gp(train_x, train_y, steps=300, lr=0.05):
    gp = ExactGP(train_x, train_y)
    opt = torch.optim.Adam(gp.parameters(), lr=lr)
    for i in range(steps):
        loss = gp.neg_mll()
        opt.zero_grad()
        loss.backward()
        opt.step()
    return gp
