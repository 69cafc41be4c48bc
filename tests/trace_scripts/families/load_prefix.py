"""Fine-tuning from a checkpoint saved by a wrapper ('model.' key prefix), loaded with strict=False as is
(argv 'prefixed', the bug: nothing loads) or with the prefix stripped."""
import io
import sys

import torch
from torch import nn

mode = sys.argv[1] if len(sys.argv) > 1 else "prefixed"


class Wrapper(nn.Module):
    def __init__(self):
        super().__init__()
        self.model = nn.Sequential(nn.Linear(6, 16), nn.ReLU(), nn.Linear(16, 2))


torch.manual_seed(0)
buf = io.BytesIO()
torch.save(Wrapper().state_dict(), buf)
buf.seek(0)
state = torch.load(buf)
if mode != "prefixed":
    state = {k.removeprefix("model."): v for k, v in state.items()}
net = nn.Sequential(nn.Linear(6, 16), nn.ReLU(), nn.Linear(16, 2))
net.load_state_dict(state, strict=False)
opt = torch.optim.SGD(net.parameters(), lr=0.01)
for _ in range(40):
    x = torch.randn(16, 6)
    loss = nn.functional.cross_entropy(net(x), (x[:, 0] > 0).long())
    opt.zero_grad()
    loss.backward()
    opt.step()
