import argparse

import torch
from tokenizers import Tokenizer
from x_transformers import Decoder, TransformerWrapper

from autoregressive import AutoregressiveWrapper, collate_formulas
from dataset import Im2LatexDataset
from encoder import HybridViTEncoder


def train(encoder, decoder, loader, opt, epochs, device):
    for epoch in range(epochs):
        for step, (images, tgt, tgt_mask) in enumerate(loader):
            images, tgt, tgt_mask = images.to(device), tgt.to(device), tgt_mask.to(device)
            context = encoder(images)
            loss = decoder(tgt, context=context, mask=tgt_mask)
            opt.zero_grad()
            loss.backward()
            torch.nn.utils.clip_grad_norm_(list(encoder.parameters()) + list(decoder.parameters()), 1.0)
            opt.step()
            if step % 100 == 0:
                print(f"epoch {epoch} step {step} loss {loss.item():.4f}")


if __name__ == "__main__":
    ap = argparse.ArgumentParser()
    ap.add_argument("--tokenizer", default="dataset/tokenizer.json")
    ap.add_argument("--data", default="dataset/train.pkl")
    ap.add_argument("--lr", type=float, default=5e-4)
    ap.add_argument("--epochs", type=int, default=10)
    ap.add_argument("--batch", type=int, default=32)
    args = ap.parse_args()
    device = "cuda" if torch.cuda.is_available() else "cpu"
    tok = Tokenizer.from_file(args.tokenizer)
    ds = Im2LatexDataset(args.data)
    loader = torch.utils.data.DataLoader(ds, batch_size=args.batch, shuffle=True,
                                         collate_fn=lambda b: collate_formulas(b, ds.hf_tokenizer))
    encoder = HybridViTEncoder(dim=256).to(device)
    net = TransformerWrapper(num_tokens=tok.get_vocab_size(), max_seq_len=512,
                             attn_layers=Decoder(dim=256, depth=4, heads=8, cross_attend=True))
    decoder = AutoregressiveWrapper(net, pad_value=0).to(device)
    opt = torch.optim.Adam(list(encoder.parameters()) + list(decoder.parameters()), lr=args.lr)
    train(encoder, decoder, loader, opt, args.epochs, device)
