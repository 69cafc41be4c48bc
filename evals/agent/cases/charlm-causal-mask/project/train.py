from __future__ import annotations

import os

import torch

from charlm.config import parse_config
from charlm.data import build_data
from charlm.model import build_model
from charlm.utils import Timer, configure_optimizer, lr_at, save_json, seed_everything


@torch.no_grad()
def estimate_loss(model, streams: dict, cfg, generator) -> dict:
    model.eval()
    out = {}
    for name, stream in streams.items():
        losses = []
        for _ in range(cfg.eval_batches):
            x, y = stream.get_batch(cfg.batch_size, generator)
            _, loss = model(x, y)
            losses.append(loss.item())
        out[name] = sum(losses) / len(losses)
    model.train()
    return out


def main(argv=None) -> dict:
    cfg = parse_config(argv)
    gen = seed_everything(cfg.seed)
    tok, train_stream, val_stream = build_data(cfg)
    model = build_model(cfg, tok.vocab_size)
    optimizer = configure_optimizer(model, cfg)
    n_params = sum(p.numel() for p in model.parameters())
    print(f"vocab={tok.vocab_size} params={n_params / 1e3:.1f}k")

    history = []
    timer = Timer()
    model.train()
    for step in range(cfg.max_steps + 1):
        lr = lr_at(step, cfg)
        for group in optimizer.param_groups:
            group["lr"] = lr

        if step % cfg.eval_interval == 0 or step == cfg.max_steps:
            losses = estimate_loss(model, {"train": train_stream, "val": val_stream}, cfg, gen)
            history.append({"step": step, **losses})
            print(f"step {step:5d} | train {losses['train']:.4f} | val {losses['val']:.4f} | lr {lr:.2e} | {timer.lap():.1f}s")
        if step == cfg.max_steps:
            break

        x, y = train_stream.get_batch(cfg.batch_size, gen)
        _, loss = model(x, y)
        optimizer.zero_grad(set_to_none=True)
        loss.backward()
        torch.nn.utils.clip_grad_norm_(model.parameters(), cfg.grad_clip)
        optimizer.step()

    model.eval()
    prompt = torch.tensor([tok.encode("the ")], dtype=torch.long)
    sample = tok.decode(model.generate(prompt, cfg.sample_tokens, generator=gen)[0].tolist())
    print("--- sample ---")
    print(sample)

    metrics = {"final": history[-1], "history": history, "sample": sample, "config": cfg.to_dict()}
    save_json(metrics, os.path.join(cfg.out_dir, "metrics.json"))
    torch.save(model.state_dict(), os.path.join(cfg.out_dir, "model.pt"))
    return metrics


if __name__ == "__main__":
    main()
