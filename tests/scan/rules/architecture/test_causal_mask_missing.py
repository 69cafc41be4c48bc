"""The ``causal-mask-missing`` rule (``mlsleuth/scan/rules/architecture/causal_mask_missing.py``)."""

from __future__ import annotations

from scan.helpers import check, check_project

RULE = {"causal-mask-missing"}


def test_generating_model_with_bidirectional_attention():
    src = """
        import torch
        import torch.nn as nn
        import torch.nn.functional as F

        class CharLM(nn.Module):
            def __init__(self, vocab, d=64):
                super().__init__()
                self.embed = nn.Embedding(vocab, d)
                layer = nn.TransformerEncoderLayer(d, 4, batch_first=True)
                self.body = nn.TransformerEncoder(layer, 2)
                self.out = nn.Linear(d, vocab)

            def forward(self, idx, pad_mask=None):
                h = self.body(self.embed(idx), src_key_padding_mask=pad_mask)  # expect: causal-mask-missing
                return self.out(h)

            @torch.no_grad()
            def generate(self, idx, steps):
                for _ in range(steps):
                    probs = F.softmax(self(idx)[:, -1], dim=-1)
                    idx = torch.cat([idx, torch.multinomial(probs, 1)], dim=1)
                return idx

        class Block(nn.Module):
            def __init__(self, d):
                super().__init__()
                self.q = nn.Linear(d, d)

            def forward(self, x):
                q = self.q(x)
                return F.scaled_dot_product_attention(q, q, q)

        class TinyGPT(nn.Module):
            def __init__(self, vocab, d):
                super().__init__()
                self.attn = nn.MultiheadAttention(d, 4, batch_first=True)
                self.head = nn.Linear(d, vocab)

            def forward(self, x):
                y, _ = self.attn(x, x, x, need_weights=False)  # expect: causal-mask-missing
                y = F.scaled_dot_product_attention(y, y, y, dropout_p=0.1)  # expect: causal-mask-missing
                return self.head(y)

        def train_step(model: TinyGPT, tokens, opt):
            logits = model(tokens[:, :-1])
            loss = F.cross_entropy(logits.flatten(0, 1), tokens[:, 1:].flatten())
            loss.backward()
            opt.step()

        def main():
            model = TinyGPT(100, 32)
            opt = torch.optim.AdamW(model.parameters())
            for tokens in loader:
                train_step(model, tokens, opt)
        """
    check(src, RULE)


def test_masked_or_non_autoregressive_attention_stays_silent():
    src = """
        import torch
        import torch.nn as nn
        import torch.nn.functional as F

        class CausalLM(nn.Module):
            def __init__(self, vocab, d=64):
                super().__init__()
                self.embed = nn.Embedding(vocab, d)
                self.body = nn.TransformerEncoder(nn.TransformerEncoderLayer(d, 4, batch_first=True), 2)
                self.out = nn.Linear(d, vocab)

            def forward(self, idx):
                T = idx.size(1)
                mask = nn.Transformer.generate_square_subsequent_mask(T)
                return self.out(self.body(self.embed(idx), mask=mask, is_causal=True))

            def generate(self, idx, steps):
                for _ in range(steps):
                    idx = torch.cat([idx, self(idx)[:, -1].argmax(-1, keepdim=True)], dim=1)
                return idx

        class SDPAModel(nn.Module):
            def __init__(self, d, vocab):
                super().__init__()
                self.head = nn.Linear(d, vocab)

            def forward(self, x):
                return self.head(F.scaled_dot_product_attention(x, x, x, is_causal=True))

        class SentenceClassifier(nn.Module):
            def __init__(self, vocab, d, n_classes):
                super().__init__()
                self.embed = nn.Embedding(vocab, d)
                self.encoder = nn.TransformerEncoder(nn.TransformerEncoderLayer(d, 4, batch_first=True), 2)
                self.cls = nn.Linear(d, n_classes)

            def forward(self, idx):
                return self.cls(self.encoder(self.embed(idx)).mean(1))

        class Seq2Seq(nn.Module):
            def __init__(self, d, vocab):
                super().__init__()
                self.cross = nn.MultiheadAttention(d, 4, batch_first=True)
                self.head = nn.Linear(d, vocab)

            def forward(self, tgt, memory):
                y, _ = self.cross(tgt, memory, memory)
                return self.head(y)

        def train(model: SentenceClassifier, batches, opt):
            for idx, labels in batches:
                loss = F.cross_entropy(model(idx), labels)
                loss.backward()
                opt.step()

        def forecast(series: torch.Tensor, net: SDPAModel):
            pred = net(series[:, :-1])
            return F.mse_loss(pred, series[:, 1:])
        """
    check(src, RULE)


def test_model_in_one_module_trained_shifted_in_another(tmp_path):
    check_project(tmp_path, {
        "model.py": """
            import torch.nn as nn

            class Decoder(nn.Module):
                def __init__(self, vocab, d=48):
                    super().__init__()
                    self.embed = nn.Embedding(vocab, d)
                    self.stack = nn.TransformerEncoder(nn.TransformerEncoderLayer(d, 4, batch_first=True), 2)
                    self.lm_head = nn.Linear(d, vocab)

                def forward(self, idx):
                    return self.lm_head(self.stack(self.embed(idx)))  # expect: causal-mask-missing
        """,
        "train.py": """
            import torch
            import torch.nn.functional as F
            from model import Decoder

            def lm_loss(net, seq):
                logits = net(seq[:, :-1])
                return F.cross_entropy(logits.reshape(-1, 16), seq[:, 1:].reshape(-1))

            net = Decoder(16)
            opt = torch.optim.AdamW(net.parameters())
            for seq in batches:
                loss = lm_loss(net, seq)
                opt.zero_grad()
                loss.backward()
                opt.step()
        """,
    }, RULE)
