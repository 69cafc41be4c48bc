import random

import torch
import torch.nn as nn
import torch.nn.functional as F


class Encoder(nn.Module):
    def __init__(self, input_size, embed_size, hidden_size, n_layers=2, dropout=0.5):
        super().__init__()
        self.hidden_size = hidden_size
        self.embed = nn.Embedding(input_size, embed_size)
        self.gru = nn.GRU(embed_size, hidden_size, n_layers, dropout=dropout, bidirectional=True)

    def forward(self, src, hidden=None):
        embedded = self.embed(src)
        outputs, hidden = self.gru(embedded, hidden)
        outputs = outputs[:, :, :self.hidden_size] + outputs[:, :, self.hidden_size:]
        return outputs, hidden


class Attention(nn.Module):
    def __init__(self, hidden_size):
        super().__init__()
        self.attn = nn.Linear(hidden_size * 2, hidden_size)
        self.v = nn.Parameter(torch.rand(hidden_size) / hidden_size ** 0.5)

    def forward(self, hidden, encoder_outputs):
        timestep = encoder_outputs.size(0)
        h = hidden.repeat(timestep, 1, 1).transpose(0, 1)
        enc = encoder_outputs.transpose(0, 1)
        energy = F.relu(self.attn(torch.cat([h, enc], dim=2)))
        scores = torch.einsum("bth,h->bt", energy, self.v)
        return F.softmax(scores, dim=1).unsqueeze(1)


class Decoder(nn.Module):
    def __init__(self, embed_size, hidden_size, output_size, n_layers=1, dropout=0.2):
        super().__init__()
        self.output_size = output_size
        self.embed = nn.Embedding(output_size, embed_size)
        self.dropout = nn.Dropout(dropout)
        self.attention = Attention(hidden_size)
        self.gru = nn.GRU(hidden_size + embed_size, hidden_size, n_layers, dropout=dropout if n_layers > 1 else 0.0)
        self.out = nn.Linear(hidden_size * 2, output_size)

    def forward(self, token, last_hidden, encoder_outputs):
        embedded = self.dropout(self.embed(token).unsqueeze(0))
        attn_weights = self.attention(last_hidden[-1], encoder_outputs)
        context = attn_weights.bmm(encoder_outputs.transpose(0, 1)).transpose(0, 1)
        output, hidden = self.gru(torch.cat([embedded, context], 2), last_hidden)
        output = self.out(torch.cat([output.squeeze(0), context.squeeze(0)], 1))
        return F.log_softmax(output, dim=1), hidden, attn_weights


class Seq2Seq(nn.Module):
    def __init__(self, encoder, decoder):
        super().__init__()
        self.encoder = encoder
        self.decoder = decoder

    def forward(self, src, trg, teacher_forcing_ratio=0.5):
        max_len, batch_size = trg.size()
        vocab_size = self.decoder.output_size
        outputs = torch.zeros(max_len, batch_size, vocab_size, device=src.device)

        encoder_output, hidden = self.encoder(src)
        hidden = hidden[:self.decoder.gru.num_layers]
        token = trg[0]
        for t in range(1, max_len):
            output, hidden, _ = self.decoder(token, hidden, encoder_output)
            outputs[t] = output
            teacher_force = random.random() < teacher_forcing_ratio
            top1 = output.argmax(1)
            token = trg[t] if teacher_force else top1
        return outputs
