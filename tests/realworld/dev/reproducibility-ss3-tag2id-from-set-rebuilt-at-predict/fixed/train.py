"""Fine-tune a small BERT for per-residue SS3 tagging and save it."""
import numpy as np
from transformers import BertConfig, BertForTokenClassification, Trainer, TrainingArguments

from data import SS3Dataset, build_tag_maps, load_split
from tokenizer_utils import get_tokenizer

OUTPUT_DIR = "ss3_model"


def compute_metrics(pred):
    labels = pred.label_ids
    preds = pred.predictions.argmax(-1)
    mask = labels != -100
    return {"q3_accuracy": float((preds[mask] == labels[mask]).mean())}


def main():
    train_seqs, train_labels = load_split(400, seed=0)
    val_seqs, val_labels = load_split(80, seed=1)
    tag2id, id2tag = build_tag_maps(train_labels)
    tokenizer = get_tokenizer(OUTPUT_DIR)

    train_dataset = SS3Dataset(train_seqs, train_labels, tokenizer, tag2id)
    val_dataset = SS3Dataset(val_seqs, val_labels, tokenizer, tag2id)

    config = BertConfig(vocab_size=tokenizer.vocab_size, hidden_size=64, num_hidden_layers=2,
                        num_attention_heads=4, intermediate_size=128, num_labels=len(tag2id))
    model = BertForTokenClassification(config)
    args = TrainingArguments(output_dir=OUTPUT_DIR, num_train_epochs=3, per_device_train_batch_size=16,
                             learning_rate=1e-3, eval_strategy="epoch", save_strategy="no",
                             report_to=[], seed=42)
    trainer = Trainer(model=model, args=args, train_dataset=train_dataset,
                      eval_dataset=val_dataset, compute_metrics=compute_metrics)
    trainer.train()
    print(trainer.evaluate())
    trainer.save_model(OUTPUT_DIR)
    tokenizer.save_pretrained(OUTPUT_DIR)


if __name__ == "__main__":
    main()
