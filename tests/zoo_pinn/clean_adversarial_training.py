"""Not a PINN, a look-alike: adversarial training (FGSM) on tabular data takes the gradient of the loss with
respect to the inputs in every step, on purpose without create_graph (the perturbation is a constant).
"""

import torch
import torch.nn.functional as F
from torch import nn

torch.manual_seed(13)
X = torch.randn(512, 6)
y = (X[:, 0] + 0.5 * X[:, 1] > 0).long()
model = nn.Sequential(nn.Linear(6, 32), nn.ReLU(), nn.Linear(32, 2))
opt = torch.optim.SGD(model.parameters(), lr=0.1, momentum=0.9)
eps = 0.05

for epoch in range(300):
    idx = torch.randint(0, 512, (64,))
    xb, yb = X[idx].clone().requires_grad_(True), y[idx]
    clean_loss = F.cross_entropy(model(xb), yb)
    (g,) = torch.autograd.grad(clean_loss, xb, retain_graph=True)
    x_adv = (xb + eps * g.sign()).detach()
    adv_loss = F.cross_entropy(model(x_adv), yb)
    loss = 0.5 * clean_loss + 0.5 * adv_loss
    opt.zero_grad()
    loss.backward()
    opt.step()
