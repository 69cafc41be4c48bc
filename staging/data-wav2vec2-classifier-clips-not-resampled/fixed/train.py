import numpy as np
from transformers import (AutoFeatureExtractor, AutoModelForAudioClassification, Trainer,
                          TrainingArguments)

from data import AudioCollator, VoiceClipDataset

MODEL = "facebook/wav2vec2-base"
DATA_ROOT = "data/voices"


def compute_metrics(eval_pred):
    logits, labels = eval_pred
    preds = np.argmax(logits, axis=-1)
    return {"accuracy": float((preds == labels).mean())}


def main():
    feature_extractor = AutoFeatureExtractor.from_pretrained(MODEL)
    model = AutoModelForAudioClassification.from_pretrained(
        MODEL, num_labels=2, label2id=VoiceClipDataset.label2id,
        id2label={v: k for k, v in VoiceClipDataset.label2id.items()},
    )
    model.freeze_feature_encoder()
    train_set = VoiceClipDataset(DATA_ROOT, "train")
    val_set = VoiceClipDataset(DATA_ROOT, "val")

    args = TrainingArguments(
        output_dir="runs/w2v2-gender",
        per_device_train_batch_size=16,
        per_device_eval_batch_size=16,
        learning_rate=3e-5,
        num_train_epochs=5,
        warmup_ratio=0.1,
        eval_strategy="epoch",
        save_strategy="epoch",
        load_best_model_at_end=True,
        metric_for_best_model="accuracy",
        remove_unused_columns=False,
        report_to="none",
    )
    trainer = Trainer(model=model, args=args, train_dataset=train_set, eval_dataset=val_set,
                      data_collator=AudioCollator(feature_extractor), compute_metrics=compute_metrics)
    trainer.train()
    print(trainer.evaluate())


if __name__ == "__main__":
    main()
