import torch
import torch.nn as nn
import torch.nn.functional as F


class AutoregressiveWrapper(nn.Module):
    def __init__(self, net, ignore_index=-100, pad_value=0):
        super().__init__()
        self.net = net
        self.ignore_index = ignore_index
        self.pad_value = pad_value
        self.max_seq_len = net.max_seq_len

    @torch.no_grad()
    def generate(self, start_tokens, seq_len, eos_token, context):
        out = start_tokens
        for _ in range(seq_len):
            logits = self.net(out[:, -self.max_seq_len:], context=context)[:, -1]
            nxt = logits.argmax(-1, keepdim=True)
            out = torch.cat([out, nxt], dim=-1)
            if (nxt == eos_token).all():
                break
        return out

    def forward(self, x, **kwargs):
        xi, xo = x[:, :-1], x[:, 1:]
        mask = kwargs.get("mask")
        if mask is not None and mask.shape[1] == x.shape[1]:
            kwargs["mask"] = mask[:, :-1]
        out = self.net(xi, **kwargs)
        xo = xo.masked_fill(xo == self.pad_value, self.ignore_index)
        return F.cross_entropy(out.transpose(1, 2), xo, ignore_index=self.ignore_index)


def collate_formulas(batch, tokenizer, pad_id=0):
    images = torch.stack([b["image"] for b in batch])
    enc = tokenizer([b["latex"] for b in batch], padding="longest", return_tensors="pt")
    ids = torch.full(enc["input_ids"].shape, pad_id)
    ids[enc["attention_mask"].bool()] = enc["input_ids"][enc["attention_mask"].bool()]
    return images, ids, enc["attention_mask"].bool()
