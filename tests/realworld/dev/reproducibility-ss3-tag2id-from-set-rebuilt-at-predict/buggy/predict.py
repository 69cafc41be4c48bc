"""Load the fine-tuned tagger and write SS3 strings for new sequences."""
import torch
from transformers import BertForTokenClassification, BertTokenizerFast

from data import build_tag_maps, load_split
from train import OUTPUT_DIR


def predict(sequences, model, tokenizer, id2tag):
    model.eval()
    outputs = []
    for seq in sequences:
        enc = tokenizer(list(seq), is_split_into_words=True, return_tensors="pt")
        with torch.no_grad():
            logits = model(**enc).logits[0]
        pred_ids = logits.argmax(-1).tolist()
        word_ids = enc.word_ids(0)
        tags = [id2tag[p] for p, w in zip(pred_ids, word_ids) if w is not None]
        outputs.append("".join(tags))
    return outputs


def main():
    _, train_labels = load_split(400, seed=0)
    tag2id, id2tag = build_tag_maps(train_labels)
    model = BertForTokenClassification.from_pretrained(OUTPUT_DIR)
    tokenizer = BertTokenizerFast.from_pretrained(OUTPUT_DIR)

    test_seqs, test_labels = load_split(50, seed=2)
    predicted = predict(["".join(s) for s in test_seqs], model, tokenizer, id2tag)
    correct = sum(p == t for pred, gold in zip(predicted, test_labels) for p, t in zip(pred, gold))
    total = sum(len(gold) for gold in test_labels)
    print("Q3 accuracy on held-out proteins:", correct / total)
    print(test_seqs[0][:30], predicted[0][:30])


if __name__ == "__main__":
    main()
