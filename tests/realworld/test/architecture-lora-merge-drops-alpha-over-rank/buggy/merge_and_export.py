"""Load a trained LoRA adapter into the base transformer, merge it and export a plain checkpoint.

Adapter files store, per layer, `<name>.lora_A`, `<name>.lora_B` and `<name>.alpha`;
the rank used in training was 32 with lora_alpha 64.
"""
import argparse

import torch
from torch import nn

from lora import inject_lora, lora_layers


class Attention(nn.Module):
    def __init__(self, dim, heads=8):
        super().__init__()
        self.heads = heads
        self.to_q = nn.Linear(dim, dim)
        self.to_k = nn.Linear(dim, dim)
        self.to_v = nn.Linear(dim, dim)
        self.to_out = nn.Linear(dim, dim)

    def forward(self, x):
        b, n, d = x.shape
        q, k, v = (t(x).view(b, n, self.heads, -1).transpose(1, 2) for t in (self.to_q, self.to_k, self.to_v))
        out = torch.nn.functional.scaled_dot_product_attention(q, k, v)
        return self.to_out(out.transpose(1, 2).reshape(b, n, d))


class Block(nn.Module):
    def __init__(self, dim):
        super().__init__()
        self.norm1, self.norm2 = nn.LayerNorm(dim), nn.LayerNorm(dim)
        self.attn = Attention(dim)
        self.ff = nn.Sequential(nn.Linear(dim, 4 * dim), nn.GELU(), nn.Linear(4 * dim, dim))

    def forward(self, x):
        x = x + self.attn(self.norm1(x))
        return x + self.ff(self.norm2(x))


class Transformer(nn.Module):
    def __init__(self, dim=256, depth=4):
        super().__init__()
        self.blocks = nn.ModuleList([Block(dim) for _ in range(depth)])

    def forward(self, x):
        for blk in self.blocks:
            x = blk(x)
        return x


def load_adapter(model, adapter_sd, rank):
    for name, layer in lora_layers(model).items():
        alpha = adapter_sd.get(f"{name}.alpha")
        layer.set_lora_weights(adapter_sd[f"{name}.lora_A"], adapter_sd[f"{name}.lora_B"],
                               alpha=float(alpha) if alpha is not None else None)


def strip_lora(model):
    """Replace every LoRA wrapper by its (merged) base nn.Linear."""
    for name, module in list(model.named_modules()):
        for child_name, child in list(module.named_children()):
            if hasattr(child, "base_layer"):
                setattr(module, child_name, child.base_layer)
    return model


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--base", default="base.pt")
    parser.add_argument("--adapter", default="adapter.pt")
    parser.add_argument("--rank", type=int, default=32)
    parser.add_argument("--out", default="merged.pt")
    args = parser.parse_args()

    model = Transformer()
    model.load_state_dict(torch.load(args.base, map_location="cpu"))
    inject_lora(model, rank=args.rank)
    load_adapter(model, torch.load(args.adapter, map_location="cpu"), args.rank)
    model.eval()

    x = torch.randn(2, 16, 256)
    with torch.no_grad():
        reference = model(x)
        for layer in lora_layers(model).values():
            layer.merge_lora_weights()
        merged_out = model(x)
    print("max |merged - unmerged|:", (merged_out - reference).abs().max().item())

    torch.save(strip_lora(model).state_dict(), args.out)


if __name__ == "__main__":
    main()
