"""What a training script does with saved state once training is over (seen by trace after the traced steps).

argv[1]:
  best-reference   the best state kept as model.state_dict() (live references) and restored at the end: the bug
  best-deepcopy    the same with copy.deepcopy: correct
  best-buffer      the best state serialised to an in-memory buffer and loaded back: correct
  resume-fresh     a job interrupted and resumed: model and optimizer restored, a fresh warm-up scheduler: the bug
  resume-restored  the same with the scheduler's state saved and restored: correct
  resume-constant  resumed with no scheduler at all (constant LR): correct
  prefix-loose     weights saved from a wrapper (keys 'net.*') loaded into the bare model with strict=False: the bug
  prefix-stripped  the same with the prefix stripped first: correct
  endless          after training, a loop that never steps an optimizer (trace must still stop in time)
  fails-after      an exception once training is over (not the traced window's concern)
"""
import copy
import io
import sys
import time

import torch
from torch import nn

mode = sys.argv[1] if len(sys.argv) > 1 else "best-reference"
torch.manual_seed(0)
x, y = torch.randn(128, 6), torch.randn(128, 1)


def build():
    return nn.Sequential(nn.Linear(6, 16), nn.Tanh(), nn.Linear(16, 1))


def fit(model, opt, steps, sched=None):
    for _ in range(steps):
        loss = nn.functional.mse_loss(model(x), y)
        opt.zero_grad()
        loss.backward()
        opt.step()
        if sched is not None:
            sched.step()


if mode.startswith("best"):
    model = build()
    opt = torch.optim.Adam(model.parameters(), lr=1e-2)
    best, best_loss = None, float("inf")
    for epoch in range(40):
        fit(model, opt, 5)
        with torch.no_grad():
            val = nn.functional.mse_loss(model(x), y).item()
        if val < best_loss:
            best_loss = val
            if mode == "best-reference":
                best = model.state_dict()
            elif mode == "best-deepcopy":
                best = copy.deepcopy(model.state_dict())
            else:
                buf = io.BytesIO()
                torch.save(model.state_dict(), buf)
                best = buf.getvalue()
    model.load_state_dict(torch.load(io.BytesIO(best)) if mode == "best-buffer" else best)
elif mode.startswith("resume"):
    saved = {}

    def job(stop_after=None):
        model = build()
        opt = torch.optim.SGD(model.parameters(), lr=0.05, momentum=0.9)
        warmup = (None if mode == "resume-constant" else
                  torch.optim.lr_scheduler.LambdaLR(opt, lambda e: min(1.0, (e + 1) / 5)))
        start = 0
        if saved:
            model.load_state_dict(saved["model"])
            opt.load_state_dict(saved["opt"])
            if mode == "resume-restored":
                warmup.load_state_dict(saved["sched"])
            start = saved["epoch"] + 1
        for epoch in range(start, stop_after or 12):
            fit(model, opt, 10, None)
            if warmup is not None:
                warmup.step()
            saved.update(model=copy.deepcopy(model.state_dict()), opt=copy.deepcopy(opt.state_dict()), epoch=epoch,
                         sched=warmup.state_dict() if warmup is not None else None)

    job(stop_after=4)
    job()
elif mode.startswith("prefix"):
    class Wrapper(nn.Module):
        def __init__(self):
            super().__init__()
            self.net = build()

        def forward(self, inputs):
            return self.net(inputs)

    wrapper = Wrapper()
    fit(wrapper, torch.optim.Adam(wrapper.parameters(), lr=1e-2), 60)
    state = wrapper.state_dict()
    if mode == "prefix-stripped":
        state = {k.removeprefix("net."): v for k, v in state.items()}
    bare = build()
    bare.load_state_dict(state, strict=False)
else:
    model = build()
    fit(model, torch.optim.Adam(model.parameters(), lr=1e-2), 30)
    if mode == "endless":
        while True:
            time.sleep(0.05)
    raise RuntimeError("evaluation set not found")
