import json
from functools import partial

import torch
from torch.utils.data import DataLoader
from transformers import AutoModelForCausalLM, AutoTokenizer, get_cosine_schedule_with_warmup

from dataset import InstructionDataset, collate


def finetune(model_name="gpt2", data_file="alpaca.json", epochs=3, lr=2e-5, bs=8):
    tok = AutoTokenizer.from_pretrained(model_name)
    tok.pad_token = tok.eos_token
    model = AutoModelForCausalLM.from_pretrained(model_name)
    records = json.load(open(data_file))
    loader = DataLoader(InstructionDataset(records, tok), batch_size=bs, shuffle=True,
                        collate_fn=partial(collate, pad_id=tok.pad_token_id))
    opt = torch.optim.AdamW(model.parameters(), lr=lr)
    sched = get_cosine_schedule_with_warmup(opt, 100, epochs * len(loader))
    model.train()
    for epoch in range(epochs):
        for step, batch in enumerate(loader):
            out = model(**batch)
            out.loss.backward()
            opt.step()
            sched.step()
            opt.zero_grad()
            if step % 50 == 0:
                print(epoch, step, out.loss.item())


if __name__ == "__main__":
    finetune()
