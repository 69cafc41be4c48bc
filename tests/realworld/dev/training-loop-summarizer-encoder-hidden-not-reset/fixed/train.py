import torch
import torch.nn as nn

from config import Config
from data import get_batches
from model import EncoderRNN, AttnDecoderRNN


def train(cfg: Config):
    encoder = EncoderRNN(cfg.vocab_size, cfg.hidden_size)
    decoder = AttnDecoderRNN(cfg.hidden_size, cfg.vocab_size, dropout_p=0.1, max_length=cfg.max_length)
    enc_opt = torch.optim.Adam(encoder.parameters(), lr=cfg.lr)
    dec_opt = torch.optim.Adam(decoder.parameters(), lr=cfg.lr)
    criterion = nn.NLLLoss(ignore_index=cfg.pad_idx)

    for epoch in range(cfg.epochs):
        for it, (article, summary) in enumerate(get_batches(cfg)):
            enc_opt.zero_grad()
            dec_opt.zero_grad()
            encoder_hidden = encoder.init_hidden(cfg.batch_size)
            encoder_outputs, encoder_hidden = encoder(article, encoder_hidden)
            decoder_input = torch.full((cfg.batch_size, 1), cfg.sos_idx, dtype=torch.long)
            decoder_hidden = encoder_hidden
            loss = 0.0
            for t in range(summary.size(1)):
                out, decoder_hidden, _ = decoder(decoder_input, decoder_hidden, encoder_outputs)
                loss = loss + criterion(out, summary[:, t])
                decoder_input = summary[:, t].unsqueeze(1)
            loss = loss / summary.size(1)
            loss.backward()
            enc_opt.step()
            dec_opt.step()
            if it % 100 == 0:
                print(f"epoch {epoch} it {it} loss {loss.item():.4f}")


if __name__ == "__main__":
    train(Config())
