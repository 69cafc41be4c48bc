import torch


def build_batch(tokenizer, premises, hypotheses, max_len=128, device="cpu"):
    ids, segs = [], []
    for p, h in zip(premises, hypotheses):
        enc = tokenizer.encode_plus(p, h, max_length=max_len, truncation=True)
        ids.append(enc["input_ids"])
        segs.append(enc["token_type_ids"])
    longest = max(len(x) for x in ids)
    input_ids = torch.full((len(ids), longest), tokenizer.pad_token_id, dtype=torch.long)
    token_type_ids = torch.zeros_like(input_ids)
    attention_mask = torch.ones_like(input_ids)
    for i, (x, s) in enumerate(zip(ids, segs)):
        input_ids[i, : len(x)] = torch.tensor(x)
        token_type_ids[i, : len(s)] = torch.tensor(s)
        attention_mask[i, len(x):] = 0
    return input_ids.to(device), token_type_ids.to(device), attention_mask.to(device)
