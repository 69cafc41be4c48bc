import torch
import torch.nn as nn
from transformers import AutoModelForCausalLM


class ResBlock(nn.Module):
    def __init__(self, hidden_size):
        super().__init__()
        self.linear = nn.Linear(hidden_size, hidden_size)
        nn.init.zeros_(self.linear.weight)
        self.act = nn.SiLU()

    def forward(self, x):
        return x + self.act(self.linear(x))


def add_medusa_heads(model, medusa_num_heads=4, medusa_num_layers=1):
    hidden_size = model.config.hidden_size
    vocab_size = model.config.vocab_size
    model.medusa_head = nn.ModuleList(
        [
            nn.Sequential(
                *[ResBlock(hidden_size) for _ in range(medusa_num_layers)],
                nn.Linear(hidden_size, vocab_size, bias=False),
            )
            for _ in range(medusa_num_heads)
        ]
    )
    model.medusa_head.to(model.dtype).to(model.device)
    for head in model.medusa_head:
        head[-1].weight.data.copy_(model.lm_head.weight.data)
    model.medusa_num_heads = medusa_num_heads
    return model


def load_medusa(name, medusa_num_heads=4, freeze_base=True):
    model = AutoModelForCausalLM.from_pretrained(name, torch_dtype=torch.bfloat16)
    if freeze_base:
        for p in model.parameters():
            p.requires_grad_(False)
    return add_medusa_heads(model, medusa_num_heads)
