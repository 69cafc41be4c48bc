"""A small CPU training script for bench_trace_overhead.py: times its own steps after a warm-up.

Writes {"per_step_s": ..., "cpu_per_step_s": ...} to the path in BENCH_TIMING (if set): wall time and this
thread's CPU time per step (the CPU time leaves out the waits of a loaded machine; the run is one thread). With BENCH_CALLS set, also counts the Python
and builtin calls made during the timed steps (``sys.setprofile``; slows the run, so timings then mean little)
and writes ``{"steps": n, "calls": {"file:function": count}}`` there (builtins as ``caller > builtin``) (bench_trace_calls.py reads it).
"""
import json
import os
import sys
import time

import torch
from torch import nn

torch.manual_seed(0)
torch.set_num_threads(1)
STEPS = int(sys.argv[1]) if len(sys.argv) > 1 else 200
HIDDEN = int(sys.argv[2]) if len(sys.argv) > 2 else 256
WARMUP = int(sys.argv[3]) if len(sys.argv) > 3 else 20
model = nn.Sequential(nn.Linear(64, HIDDEN), nn.ReLU(), nn.Linear(HIDDEN, HIDDEN), nn.ReLU(), nn.Linear(HIDDEN, 10))
opt = torch.optim.Adam(model.parameters(), lr=1e-3)
loss_fn = nn.CrossEntropyLoss()
data = [(torch.randn(128, 64), torch.randint(0, 10, (128,))) for _ in range(16)]
start = None
calls: dict = {}


def _count(frame, event, arg):
    if event == "call":
        key = f"{os.path.basename(frame.f_code.co_filename)}:{frame.f_code.co_qualname}"
    elif event == "c_call":
        name = getattr(arg, "__qualname__", None) or getattr(arg, "__name__", repr(arg))
        key = f"{os.path.basename(frame.f_code.co_filename)}:{frame.f_code.co_qualname} > {name}"  # a builtin, by caller
    else:
        return
    calls[key] = calls.get(key, 0) + 1


for step in range(STEPS):
    if step == WARMUP:
        start, cpu_start = time.perf_counter(), time.thread_time()
        if os.environ.get("BENCH_CALLS"):
            sys.setprofile(_count)
        if os.environ.get("BENCH_PROFILE"):
            import cProfile

            profiler = cProfile.Profile()
            profiler.enable()
    x, y = data[step % len(data)]
    opt.zero_grad()
    loss = loss_fn(model(x), y)
    loss.backward()
    opt.step()
per_step = (time.perf_counter() - start) / (STEPS - WARMUP)
cpu_per_step = (time.thread_time() - cpu_start) / (STEPS - WARMUP)
if os.environ.get("BENCH_PROFILE"):
    profiler.disable()
    profiler.dump_stats(os.environ["BENCH_PROFILE"])
if os.environ.get("BENCH_CALLS"):
    sys.setprofile(None)
    with open(os.environ["BENCH_CALLS"], "w") as fh:
        json.dump({"steps": STEPS - WARMUP, "calls": calls}, fh)
if os.environ.get("BENCH_TIMING"):
    with open(os.environ["BENCH_TIMING"], "w") as fh:
        json.dump({"per_step_s": per_step, "cpu_per_step_s": cpu_per_step}, fh)
