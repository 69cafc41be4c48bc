class InstructionFeaturizer:
    """Turns {instruction, input, output} records into fixed-length
    input_ids / attention_mask.

    This run adapts the model to the domain's phrasing, so the whole rendered
    text (prompt and answer) is the language-modelling target; the collator
    builds the labels from input_ids and ignores the padding.
    """

    def __init__(self, tokenizer, builder, max_len=256):
        self.tok = tokenizer
        self.builder = builder
        self.max_len = max_len

    def __call__(self, record):
        text = self.builder.prompt(record["instruction"], record.get("input", "")) + record["output"]
        ids = self.tok(text, truncation=True, max_length=self.max_len, add_special_tokens=True)["input_ids"]
        if len(ids) < self.max_len and ids[-1] != self.tok.eos_token_id:
            ids = ids + [self.tok.eos_token_id]
        n_pad = self.max_len - len(ids)
        return {
            "input_ids": ids + [self.tok.pad_token_id] * n_pad,
            "attention_mask": [1] * len(ids) + [0] * n_pad,
        }
