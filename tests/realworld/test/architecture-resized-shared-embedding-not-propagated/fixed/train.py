import torch
from model import Seq2SeqModel
from tokenizer import load_tokenizer
from data import make_loader

if __name__ == "__main__":
    tok = load_tokenizer("tokenizer.json")
    model = Seq2SeqModel(vocab_size=50265)
    model.load_state_dict(torch.load("pretrained_seq2seq.pt"))
    # pad the vocabulary to a multiple of 64 for faster matmuls
    model.resize_token_embeddings((len(tok) + 63) // 64 * 64)
    opt = torch.optim.AdamW(model.parameters(), lr=3e-5)
    ce = torch.nn.CrossEntropyLoss(ignore_index=model.pad_id)
    for src, tgt_in, tgt_out in make_loader("data/dialogs.jsonl", tok, batch_size=16):
        logits = model(src, tgt_in)
        loss = ce(logits.reshape(-1, logits.size(-1)), tgt_out.reshape(-1))
        opt.zero_grad()
        loss.backward()
        opt.step()
