from datasets import load_dataset


def load_conll(name="conll2003"):
    raw = load_dataset(name)
    label_list = raw["train"].features["ner_tags"].feature.names
    return raw, label_list


def make_align_fn(tokenizer, max_length, label_all_tokens):
    def tokenize_and_align_labels(examples):
        tokenized = tokenizer(
            examples["tokens"], truncation=True, max_length=max_length, is_split_into_words=True
        )
        all_labels = []
        for i, label in enumerate(examples["ner_tags"]):
            word_ids = tokenized.word_ids(batch_index=i)
            previous_word_idx = None
            label_ids = []
            for word_idx in word_ids:
                if word_idx is None:
                    label_ids.append(-100)
                elif word_idx != previous_word_idx:
                    label_ids.append(label[word_idx])
                else:
                    label_ids.append(label[word_idx] if label_all_tokens else -100)
                previous_word_idx = word_idx
            all_labels.append(label_ids)
        tokenized["labels"] = all_labels
        return tokenized

    return tokenize_and_align_labels


def build_datasets(raw, tokenizer, cfg, label_list):
    align = make_align_fn(tokenizer, cfg.max_length, cfg.label_all_tokens)
    return raw.map(align, batched=True, remove_columns=raw["train"].column_names)
