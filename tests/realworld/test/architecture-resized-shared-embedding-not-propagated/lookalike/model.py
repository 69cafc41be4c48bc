import torch
import torch.nn as nn


class Seq2SeqModel(nn.Module):
    def __init__(self, vocab_size, d_model=512, nhead=8, layers=6, pad_id=1):
        super().__init__()
        self.pad_id = pad_id
        self.shared = nn.Embedding(vocab_size, d_model, padding_idx=pad_id)
        self.encoder = Encoder(self.shared, d_model, nhead, layers)
        self.decoder = Decoder(self.shared, d_model, nhead, layers)
        self.lm_head = nn.Linear(d_model, vocab_size, bias=False)
        self.lm_head.weight = self.shared.weight

    def get_input_embeddings(self):
        return self.shared

    def set_input_embeddings(self, value):
        self.shared.weight = value.weight
        self.shared.num_embeddings = value.num_embeddings

    def resize_token_embeddings(self, new_num_tokens):
        old = self.shared
        new = nn.Embedding(new_num_tokens, old.embedding_dim, padding_idx=self.pad_id)
        n = min(old.num_embeddings, new_num_tokens)
        with torch.no_grad():
            new.weight[:n] = old.weight[:n]
        self.set_input_embeddings(new)
        self.lm_head = nn.Linear(old.embedding_dim, new_num_tokens, bias=False)
        self.lm_head.weight = self.shared.weight
        return self.shared

    def forward(self, input_ids, decoder_input_ids):
        memory = self.encoder(input_ids, input_ids == self.pad_id)
        h = self.decoder(decoder_input_ids, memory, input_ids == self.pad_id)
        return self.lm_head(h)


class Encoder(nn.Module):
    def __init__(self, embed_tokens, d_model, nhead, layers):
        super().__init__()
        self.embed_tokens = embed_tokens
        self.layers = nn.TransformerEncoder(nn.TransformerEncoderLayer(d_model, nhead, batch_first=True), layers)

    def forward(self, ids, pad_mask):
        return self.layers(self.embed_tokens(ids), src_key_padding_mask=pad_mask)


class Decoder(nn.Module):
    def __init__(self, embed_tokens, d_model, nhead, layers):
        super().__init__()
        self.embed_tokens = embed_tokens
        self.layers = nn.TransformerDecoder(nn.TransformerDecoderLayer(d_model, nhead, batch_first=True), layers)

    def forward(self, ids, memory, mem_pad_mask):
        T = ids.shape[1]
        causal = nn.Transformer.generate_square_subsequent_mask(T, device=ids.device)
        return self.layers(self.embed_tokens(ids), memory, tgt_mask=causal, memory_key_padding_mask=mem_pad_mask)
