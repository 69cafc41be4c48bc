"""The ``padding-counted-in-loss`` rule (``mlsleuth/scan/rules/loss/padding_counted_in_loss.py``)."""

from __future__ import annotations

from scan.helpers import check, check_project, findings

PAD = {"padding-counted-in-loss"}


def test_pad_sequence_default_zero_into_a_plain_criterion_across_files(tmp_path):
    check_project(
        tmp_path,
        {
            "data.py": """
                import torch
                from torch.nn.utils.rnn import pad_sequence

                def collate(batch):
                    src = pad_sequence([b[0] for b in batch], batch_first=True)
                    tgt = pad_sequence([b[1] for b in batch], batch_first=True)
                    return src, tgt
                """,
            "train.py": """
                import torch.nn as nn
                from data import collate

                criterion = nn.CrossEntropyLoss()

                def step(model, batch, opt):
                    src, tgt = collate(batch)
                    out = model(src)
                    loss = criterion(out.flatten(0, 1), tgt.flatten())  # expect: padding-counted-in-loss
                    opt.zero_grad()
                    loss.backward()
                    opt.step()
                """,
        },
        PAD,
    )


def test_new_full_buffer_with_a_named_pad_and_a_different_ignore_index():
    src = """
        import torch
        import torch.nn.functional as F

        PAD_ID = 3

        def batchify(seqs):
            n = max(len(s) for s in seqs)
            out = seqs[0].new_full((len(seqs), n), PAD_ID)
            for i, s in enumerate(seqs):
                out[i, : len(s)] = s
            return out

        def loss_on(model, seqs):
            ids = batchify(seqs)
            logits = model(ids[:, :-1])
            return F.cross_entropy(logits.transpose(1, 2), ids[:, 1:], ignore_index=-1)  # expect: padding-counted-in-loss
        """
    check(src, PAD)
    (f,) = findings(src, "padding-counted-in-loss")
    assert "pad value 3" in f.message and "skips only -1" in f.message


def test_hf_labels_cloned_from_padded_input_ids():
    src = """
        from transformers import AutoModelForCausalLM, AutoTokenizer

        tok = AutoTokenizer.from_pretrained("gpt2")
        tok.pad_token = tok.eos_token
        model = AutoModelForCausalLM.from_pretrained("gpt2")

        def train_step(texts, opt):
            batch = tok(texts, padding=True, truncation=True, return_tensors="pt")
            labels = batch["input_ids"].clone()
            out = model(**batch, labels=labels)  # expect: padding-counted-in-loss
            out.loss.backward()
            opt.step()
            opt.zero_grad()
        """
    check(src, PAD)


def test_module_stores_its_pad_index_and_never_uses_it():
    src = """
        import torch.nn as nn
        import torch.nn.functional as F

        class Tagger(nn.Module):
            def __init__(self, vocab, tags, pad_idx=0):
                super().__init__()
                self.emb = nn.Embedding(vocab, 64)
                self.rnn = nn.LSTM(64, 64, batch_first=True)
                self.out = nn.Linear(64, tags)
                self.pad_idx = pad_idx

            def forward(self, words, tags):
                h, _ = self.rnn(self.emb(words))
                scores = F.log_softmax(self.out(h), dim=-1)
                return F.nll_loss(scores.view(-1, scores.size(-1)), tags.view(-1))  # expect: padding-counted-in-loss
        """
    check(src, PAD)
    (f,) = findings(src, "padding-counted-in-loss")
    assert "self.pad_idx" in f.message


def test_masked_or_ignored_pads_stay_silent():
    src = """
        import torch
        import torch.nn as nn
        import torch.nn.functional as F
        from torch.nn.utils.rnn import pad_sequence

        PAD = 0

        def collate_ignored(batch):
            return pad_sequence(batch, batch_first=True, padding_value=-100)

        def loss_a(logits, batch):
            return F.cross_entropy(logits, collate_ignored(batch))

        def loss_b(logits, batch):
            tgt = pad_sequence(batch, batch_first=True, padding_value=PAD)
            return F.cross_entropy(logits, tgt, ignore_index=PAD)

        def loss_c(logits, batch):
            tgt = pad_sequence(batch, batch_first=True)
            tgt[tgt == PAD] = -100
            return F.cross_entropy(logits, tgt)

        def loss_d(logits, batch):
            tgt = pad_sequence(batch, batch_first=True)
            tgt = tgt.masked_fill(tgt == PAD, -100)
            return F.cross_entropy(logits, tgt)

        crit = nn.CrossEntropyLoss(ignore_index=PAD)

        def loss_e(logits, batch):
            return crit(logits, pad_sequence(batch, batch_first=True))
        """
    check(src, PAD)


def test_fully_written_label_buffers_are_not_padding():
    src = """
        import torch
        import torch.nn.functional as F

        def targets_for(samples):
            y = torch.zeros(len(samples), dtype=torch.long)
            for i, s in enumerate(samples):
                y[i] = s.label
            return y

        def loss(logits, samples):
            return F.cross_entropy(logits, targets_for(samples))

        def constant_targets(logits):
            real = torch.full((logits.size(0),), 1)
            return F.cross_entropy(logits, real)
        """
    check(src, PAD)


def test_hf_labels_without_padding_or_relabelled_by_a_collator_stay_silent():
    src = """
        from transformers import AutoTokenizer, DataCollatorForSeq2Seq

        tok = AutoTokenizer.from_pretrained("t5-small")

        def features(example):
            enc = tok(example["text"], truncation=True, max_length=256)
            enc["labels"] = tok(example["summary"], truncation=True)["input_ids"]
            return enc

        def masked_features(example):
            enc = tok(example["text"], padding="max_length", max_length=256)
            enc["labels"] = [t if m else -100 for t, m in zip(enc["input_ids"], enc["attention_mask"])]
            return enc

        collator = DataCollatorForSeq2Seq(tok, label_pad_token_id=-100)
        """
    check(src, PAD)
    lm = """
        from transformers import AutoTokenizer, DataCollatorForLanguageModeling

        tok = AutoTokenizer.from_pretrained("gpt2")

        def features(example):
            enc = tok(example["text"], padding="max_length", max_length=128)
            enc["labels"] = list(enc["input_ids"])
            return enc

        collator = DataCollatorForLanguageModeling(tok, mlm=False)
        """
    check(lm, PAD)


def test_a_stored_pad_index_that_is_used_or_matches_the_loss_stays_silent():
    src = """
        import torch.nn as nn
        import torch.nn.functional as F

        class UsesIt(nn.Module):
            def __init__(self, vocab, pad_idx=0):
                super().__init__()
                self.pad_idx = pad_idx
                self.emb = nn.Embedding(vocab, 32, padding_idx=self.pad_idx)
                self.out = nn.Linear(32, vocab)

            def forward(self, x, y):
                return F.cross_entropy(self.out(self.emb(x)).transpose(1, 2), y, ignore_index=self.pad_idx)

        class AlreadyDefault(nn.Module):
            def __init__(self, vocab, ignore_index=-100):
                super().__init__()
                self.ignore_index = ignore_index
                self.out = nn.Linear(32, vocab)

            def forward(self, h, y):
                return F.cross_entropy(self.out(h).transpose(1, 2), y)
        """
    check(src, PAD)


def test_hf_labels_copied_from_ids_padded_by_list_extension():
    check(
        """
        import torch
        from transformers import GPT2LMHeadModel, Trainer

        PAD, MAX_LEN = 0, 32

        class Sentences(torch.utils.data.Dataset):
            def __getitem__(self, i):
                row = self.rows[i]
                ids = row + [PAD] * (MAX_LEN - len(row))
                mask = [1] * len(row) + [0] * (MAX_LEN - len(row))
                return {"input_ids": torch.tensor(ids), "attention_mask": torch.tensor(mask), "labels": torch.tensor(ids).clone()}  # expect: padding-counted-in-loss
        """,
        PAD,
    )


def test_list_padded_labels_with_the_ignore_index_stay_silent():
    check(
        """
        import torch
        from transformers import GPT2LMHeadModel, Trainer

        PAD, MAX_LEN = 0, 32

        class Sentences(torch.utils.data.Dataset):
            def __getitem__(self, i):
                row = self.rows[i]
                ids = row + [PAD] * (MAX_LEN - len(row))
                labels = row + [-100] * (MAX_LEN - len(row))
                return {"input_ids": torch.tensor(ids), "labels": torch.tensor(labels)}
        """,
        PAD,
    )
