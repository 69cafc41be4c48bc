"""The ``lm-collator-discards-labels`` rule (``mlsleuth/scan/rules/data/lm_collator_discards_labels.py``)."""

from __future__ import annotations

from scan.helpers import check, check_project

RULE = {"lm-collator-discards-labels"}


def test_masked_labels_then_the_lm_collator_is_found():
    src = """
        import transformers
        from transformers import DataCollatorForLanguageModeling, Trainer

        IGNORE_INDEX = -100

        def featurize(tokenizer, prompt, answer):
            p = tokenizer(prompt)["input_ids"]
            ids = p + tokenizer(answer)["input_ids"]
            return {"input_ids": ids, "labels": [IGNORE_INDEX] * len(p) + ids[len(p):]}

        def train(model, tokenizer, data, args):
            trainer = Trainer(model=model, args=args, train_dataset=data.map(featurize),
                              data_collator=DataCollatorForLanguageModeling(tokenizer, mlm=False))  # expect: lm-collator-discards-labels
            collate = transformers.DataCollatorForLanguageModeling(tokenizer, False)  # expect: lm-collator-discards-labels
            return trainer, collate
        """
    check(src, RULE)


def test_labels_masked_in_another_module_are_found(tmp_path):
    files = {
        "utils/__init__.py": "",
        "utils/preprocess.py": """
            def to_features(tok, rec):
                ids = tok(rec["prompt"] + rec["answer"])["input_ids"]
                labels = list(ids)
                labels[: len(tok(rec["prompt"])["input_ids"])] = [-100] * 4
                return {"input_ids": ids, "labels": labels}
            """,
        "finetune.py": """
            import transformers
            from utils.preprocess import to_features

            def main(model, tok, ds, args):
                trainer = transformers.Trainer(
                    model=model, args=args, train_dataset=ds.map(lambda r: to_features(tok, r)),
                    data_collator=transformers.DataCollatorForLanguageModeling(tok, mlm=False))  # expect: lm-collator-discards-labels
                trainer.train()
            """,
    }
    check_project(tmp_path, files, RULE)


def test_plain_text_training_and_label_aware_collators_stay_silent():
    plain = """
        from transformers import DataCollatorForLanguageModeling, DataCollatorForSeq2Seq, Trainer

        def tokenize(tokenizer, batch):
            return tokenizer(batch["text"], truncation=True, max_length=512)

        def train(model, tokenizer, data, args):
            collator = DataCollatorForLanguageModeling(tokenizer, mlm=False)
            return Trainer(model=model, args=args, train_dataset=data.map(tokenize), data_collator=collator)
        """
    check(plain, RULE)
    masked_with_seq2seq = """
        from transformers import DataCollatorForLanguageModeling, DataCollatorForSeq2Seq

        def featurize(tokenizer, prompt, answer):
            p = tokenizer(prompt)["input_ids"]
            ids = p + tokenizer(answer)["input_ids"]
            return {"input_ids": ids, "labels": [-100] * len(p) + ids[len(p):]}

        def collators(tokenizer):
            sft = DataCollatorForSeq2Seq(tokenizer, padding=True)
            mlm = DataCollatorForLanguageModeling(tokenizer, mlm=True, mlm_probability=0.15)
            return sft, mlm
        """
    check(masked_with_seq2seq, RULE)


def test_unmasked_label_copies_with_minus_100_only_in_comments_stay_silent():
    src = """
        from transformers import DataCollatorForLanguageModeling

        class Blocks:
            def __getitem__(self, i):
                ids = self.enc["input_ids"][i]
                # a padded copy: the collator rebuilds labels from input_ids with the pads at -100
                return {"input_ids": ids, "labels": list(ids)}

        collator = DataCollatorForLanguageModeling(tokenizer=None, mlm=False)
        """
    check(src, RULE)
