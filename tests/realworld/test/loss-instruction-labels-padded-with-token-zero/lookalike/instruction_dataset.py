import copy
import json

import torch
from torch.utils.data import Dataset

PROMPT = ("Below is an instruction that describes a task. Write a response that appropriately completes the request.\n\n"
          "### Instruction:\n{instruction}\n\n### Response:\n")
IGNORE_INDEX = -100


class InstructionDataset(Dataset):
    def __init__(self, json_path, tokenizer, max_words=224):
        with open(json_path) as f:
            self.ann = json.load(f)
        self.tokenizer = tokenizer
        self.max_words = max_words

    def __len__(self):
        return len(self.ann)

    def __getitem__(self, index):
        ann = self.ann[index]
        prompt = PROMPT.format(instruction=ann["instruction"])
        example = prompt + ann["output"]
        prompt_ids = torch.tensor(self.tokenizer.encode(prompt), dtype=torch.int64)
        example = self.tokenizer.encode(example) + [self.tokenizer.eos_token_id]
        example = torch.tensor(example, dtype=torch.int64)
        padding = self.max_words - example.shape[0]
        if padding > 0:
            example = torch.cat((example, torch.zeros(padding, dtype=torch.int64) - 1))
        else:
            example = example[: self.max_words]
        labels = copy.deepcopy(example)
        labels[: len(prompt_ids)] = -1
        example_mask = example.ge(0)
        label_mask = labels.ge(0)
        example[~example_mask] = 0
        labels[~label_mask] = IGNORE_INDEX
        example_mask = example_mask.float()
        return {"input_ids": example, "labels": labels, "attention_mask": example_mask}
