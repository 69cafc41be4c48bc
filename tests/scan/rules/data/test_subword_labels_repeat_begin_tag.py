"""The ``subword-labels-repeat-begin-tag`` rule (``mlsleuth/scan/rules/data/subword_labels_repeat_begin_tag.py``)."""

from __future__ import annotations

from scan.helpers import check, findings, project_reported, write_project

RULE = "subword-labels-repeat-begin-tag"


def test_label_all_tokens_branch_with_flag_on_by_default():
    src = """
    def tokenize_and_align_labels(examples, tokenizer, label_all_tokens=True):
        tokenized = tokenizer(examples["tokens"], truncation=True, is_split_into_words=True)
        labels = []
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
                    label_ids.append(label[word_idx] if label_all_tokens else -100)  # expect: subword-labels-repeat-begin-tag
                previous_word_idx = word_idx
            labels.append(label_ids)
        tokenized["labels"] = labels
        return tokenized
    """
    (f,) = findings(src, RULE)
    check(src, {RULE})
    assert "B-" in f.message


def test_every_piece_copies_the_tag_and_equal_test_branch():
    src = """
    LABEL_NAMES = ["O", "B-PER", "I-PER", "B-LOC", "I-LOC"]
    SPREAD = True

    def align(enc, word_tags):
        return [-100 if w is None else word_tags[w] for w in enc.word_ids()]  # expect: subword-labels-repeat-begin-tag

    def align_loop(enc, tags):
        out, prev = [], None
        for wid in enc.word_ids():
            if wid is None:
                out.append(-100)
            elif wid == prev:
                out.append(tags[wid] if SPREAD else -100)  # expect: subword-labels-repeat-begin-tag
            else:
                out.append(tags[wid])
            prev = wid
        return out
    """
    check(src, {RULE})


def test_flag_passed_from_a_config_in_another_module(tmp_path):
    write_project(tmp_path, {
        "ner_data.py": """
            def make_align_fn(tokenizer, label_all_tokens):
                def align(examples):
                    enc = tokenizer(examples["tokens"], is_split_into_words=True)
                    all_labels = []
                    for i, label in enumerate(examples["ner_tags"]):
                        prev, ids = None, []
                        for w in enc.word_ids(batch_index=i):
                            if w is None:
                                ids.append(-100)
                            elif w != prev:
                                ids.append(label[w])
                            else:
                                ids.append(label[w] if label_all_tokens else -100)
                            prev = w
                        all_labels.append(ids)
                    enc["labels"] = all_labels
                    return enc
                return align
        """,
        "train.py": """
            from dataclasses import dataclass
            from ner_data import make_align_fn

            @dataclass
            class Cfg:
                label_all_tokens: bool = True

            def main(tokenizer, raw, cfg=Cfg()):
                return raw.map(make_align_fn(tokenizer, cfg.label_all_tokens), batched=True)
        """,
    })
    assert {(r, line) for r, _p, line in project_reported(tmp_path, {RULE})} == {(RULE, 13)}


def test_negative_flag_off_mapped_to_inside_first_piece_only_and_pos_tags():
    src = """
    def off(enc, label, label_all_tokens=False):
        prev, ids = None, []
        for w in enc.word_ids():
            if w is None:
                ids.append(-100)
            elif w != prev:
                ids.append(label[w])
            else:
                ids.append(label[w] if label_all_tokens else -100)
            prev = w
        return ids

    def mapped(enc, label, b_to_i_label, label_all_tokens=True):
        prev, ids = None, []
        for w in enc.word_ids():
            if w is None:
                ids.append(-100)
            elif w != prev:
                ids.append(label[w])
            else:
                ids.append(b_to_i_label[label[w]] if label_all_tokens else -100)
            prev = w
        return ids

    def first_only(enc, examples):
        label = examples["ner_tags"]
        prev, ids = None, []
        for w in enc.word_ids():
            ids.append(-100 if w is None or w == prev else label[w])
            prev = w
        return ids
    """
    check(src, {RULE})
    pos = """
    def align_pos(enc, examples):
        tags = examples["pos_tags"]
        return [-100 if w is None else tags[w] for w in enc.word_ids()]
    """
    check(pos, {RULE})


def test_negative_words_copied_per_piece_are_not_tags():
    src = """
    def piece_words(enc, words, examples):
        tags = examples["ner_tags"]
        return [None if w is None else words[w] for w in enc.word_ids()]
    """
    check(src, {RULE})


def test_tag_repeated_once_per_piece_in_manual_alignment():
    src = """
    LABELS = ["O", "B-MISC", "I-MISC", "B-PER", "I-PER"]

    def convert(words, tags, tokenizer, label_map):
        tokens, label_ids = [], []
        for word, tag in zip(words, tags):
            pieces = tokenizer.tokenize(word)
            tokens.extend(pieces)
            label_ids.extend([label_map[tag]] * len(pieces))  # expect: subword-labels-repeat-begin-tag
        return tokens, label_ids
    """
    check(src, {RULE})


def test_negative_first_piece_only_in_manual_alignment_and_no_bio():
    src = """
    LABELS = ["O", "B-MISC", "I-MISC"]

    def convert(words, tags, tokenizer, label_map, pad_label_id=-100):
        tokens, label_ids = [], []
        for word, tag in zip(words, tags):
            pieces = tokenizer.tokenize(word)
            tokens.extend(pieces)
            label_ids.extend([label_map[tag]] + [pad_label_id] * (len(pieces) - 1))
        return tokens, label_ids
    """
    check(src, {RULE})
    pos = """
    def convert(words, pos_tags, tokenizer):
        out = []
        for word, tag in zip(words, pos_tags):
            out.extend([tag] * len(tokenizer.tokenize(word)))
        return out
    """
    check(pos, {RULE})
