from dataclasses import dataclass

import evaluate
import numpy as np
from transformers import (AutoModelForTokenClassification, AutoTokenizer,
                          DataCollatorForTokenClassification, Trainer, TrainingArguments)

from ner_data import build_datasets, load_conll


@dataclass
class NerConfig:
    model_checkpoint: str = "bert-base-cased"
    max_length: int = 256
    label_all_tokens: bool = True
    batch_size: int = 16
    lr: float = 2e-5
    epochs: int = 3
    output_dir: str = "runs/bert-conll03"


def main(cfg=NerConfig()):
    raw, label_list = load_conll()
    tokenizer = AutoTokenizer.from_pretrained(cfg.model_checkpoint)
    tokenized = build_datasets(raw, tokenizer, cfg, label_list)
    model = AutoModelForTokenClassification.from_pretrained(
        cfg.model_checkpoint, num_labels=len(label_list),
        id2label=dict(enumerate(label_list)), label2id={l: i for i, l in enumerate(label_list)},
    )
    seqeval = evaluate.load("seqeval")

    def compute_metrics(p):
        predictions, labels = p
        predictions = np.argmax(predictions, axis=2)
        true_predictions = [
            [label_list[pr] for pr, la in zip(prediction, label) if la != -100]
            for prediction, label in zip(predictions, labels)
        ]
        true_labels = [
            [label_list[la] for pr, la in zip(prediction, label) if la != -100]
            for prediction, label in zip(predictions, labels)
        ]
        results = seqeval.compute(predictions=true_predictions, references=true_labels)
        return {k: results[f"overall_{k}"] for k in ("precision", "recall", "f1", "accuracy")}

    args = TrainingArguments(
        output_dir=cfg.output_dir,
        learning_rate=cfg.lr,
        per_device_train_batch_size=cfg.batch_size,
        per_device_eval_batch_size=cfg.batch_size,
        num_train_epochs=cfg.epochs,
        weight_decay=0.01,
        eval_strategy="epoch",
        save_strategy="epoch",
        report_to="none",
    )
    trainer = Trainer(
        model=model,
        args=args,
        train_dataset=tokenized["train"],
        eval_dataset=tokenized["validation"],
        data_collator=DataCollatorForTokenClassification(tokenizer),
        tokenizer=tokenizer,
        compute_metrics=compute_metrics,
    )
    trainer.train()
    print(trainer.evaluate(tokenized["test"]))


if __name__ == "__main__":
    main()
