from dataclasses import dataclass, field

import torch
from torch.utils.data import Dataset
from transformers import HfArgumentParser, Trainer, TrainingArguments

from model.CLIP import M3DCLIP, M3DCLIPConfig


@dataclass
class ModelArguments:
    hidden_size: int = field(default=768)
    num_layers: int = field(default=6)


@dataclass
class DataArguments:
    num_samples: int = field(default=512)
    max_length: int = field(default=128)


class CTReportDataset(Dataset):
    """Stand-in for 3D CT volumes paired with radiology report tokens."""

    def __init__(self, n, max_length, vocab_size=30522):
        self.n, self.max_length, self.vocab_size = n, max_length, vocab_size

    def __len__(self):
        return self.n

    def __getitem__(self, idx):
        g = torch.Generator().manual_seed(idx)
        image = torch.randn(1, 32, 256, 256, generator=g)
        length = int(torch.randint(16, self.max_length, (1,), generator=g))
        ids = torch.zeros(self.max_length, dtype=torch.long)
        ids[:length] = torch.randint(1, self.vocab_size, (length,), generator=g)
        mask = (ids != 0).long()
        return {"image": image, "input_id": ids, "attention_mask": mask}


@dataclass
class DataCollator:
    def __call__(self, batch):
        images = torch.stack([b["image"] for b in batch])
        input_ids = torch.stack([b["input_id"] for b in batch])
        attention_mask = torch.stack([b["attention_mask"] for b in batch])
        # the i-th image matches the i-th report
        labels = torch.arange(len(batch), dtype=torch.long)
        return {"images": images, "input_ids": input_ids, "attention_mask": attention_mask, "labels": labels}


def main():
    parser = HfArgumentParser((ModelArguments, DataArguments, TrainingArguments))
    model_args, data_args, training_args = parser.parse_args_into_dataclasses()

    config = M3DCLIPConfig(hidden_size=model_args.hidden_size, num_layers=model_args.num_layers)
    model = M3DCLIP(config)

    train_ds = CTReportDataset(data_args.num_samples, data_args.max_length)
    eval_ds = CTReportDataset(64, data_args.max_length)
    trainer = Trainer(
        model=model,
        args=training_args,
        data_collator=DataCollator(),
        train_dataset=train_ds,
        eval_dataset=eval_ds,
    )
    trainer.train()
    trainer.save_model(training_args.output_dir)


if __name__ == "__main__":
    main()
