IGNORE_INDEX = -100


class InstructionFeaturizer:
    """Turns {instruction, input, output} records into fixed-length
    input_ids / attention_mask / labels.

    Only the answer tokens are supervised: label positions that belong to the
    prompt (and the padding) are set to IGNORE_INDEX unless `supervise_prompt`
    is set.
    """

    def __init__(self, tokenizer, builder, max_len=256, supervise_prompt=False):
        self.tok = tokenizer
        self.builder = builder
        self.max_len = max_len
        self.supervise_prompt = supervise_prompt

    def _encode(self, text, append_eos):
        ids = self.tok(text, truncation=True, max_length=self.max_len, add_special_tokens=True)["input_ids"]
        if append_eos and len(ids) < self.max_len and ids[-1] != self.tok.eos_token_id:
            ids = ids + [self.tok.eos_token_id]
        return ids

    def __call__(self, record):
        prompt = self.builder.prompt(record["instruction"], record.get("input", ""))
        ids = self._encode(prompt + record["output"], append_eos=True)
        labels = list(ids)
        if not self.supervise_prompt:
            n_prompt = len(self._encode(prompt, append_eos=False))
            labels[:n_prompt] = [IGNORE_INDEX] * min(n_prompt, len(labels))
        n_pad = self.max_len - len(ids)
        return {
            "input_ids": ids + [self.tok.pad_token_id] * n_pad,
            "attention_mask": [1] * len(ids) + [0] * n_pad,
            "labels": labels + [IGNORE_INDEX] * n_pad,
        }
