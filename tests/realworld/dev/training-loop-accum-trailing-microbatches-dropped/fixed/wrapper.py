import logging

import torch
from torch.utils.data import DataLoader, RandomSampler
from tqdm import trange, tqdm
from transformers import AdamW, get_linear_schedule_with_warmup

logger = logging.getLogger("root")


class TransformerModelWrapper:
    def __init__(self, model, tokenizer, device):
        self.model = model
        self.tokenizer = tokenizer
        self.device = device

    def mlm_train_step(self, batch):
        inputs = {k: v.to(self.device) for k, v in batch.items() if k != "labels"}
        outputs = self.model(**inputs)
        return torch.nn.functional.cross_entropy(outputs.logits, batch["labels"].to(self.device))

    def train(self, train_data, per_gpu_train_batch_size=4, num_train_epochs=3, gradient_accumulation_steps=8,
              weight_decay=0.0, learning_rate=1e-5, adam_epsilon=1e-8, warmup_steps=0, max_grad_norm=1.0):
        train_dataloader = DataLoader(train_data, sampler=RandomSampler(train_data), batch_size=per_gpu_train_batch_size)
        t_total = len(train_dataloader) // gradient_accumulation_steps * num_train_epochs

        no_decay = ["bias", "LayerNorm.weight"]
        grouped = [
            {"params": [p for n, p in self.model.named_parameters() if not any(nd in n for nd in no_decay)],
             "weight_decay": weight_decay},
            {"params": [p for n, p in self.model.named_parameters() if any(nd in n for nd in no_decay)],
             "weight_decay": 0.0},
        ]
        optimizer = AdamW(grouped, lr=learning_rate, eps=adam_epsilon)
        scheduler = get_linear_schedule_with_warmup(optimizer, num_warmup_steps=warmup_steps, num_training_steps=t_total)

        step = 0
        global_step = 0
        tr_loss = 0.0
        self.model.zero_grad()
        for _ in trange(int(num_train_epochs), desc="Epoch"):
            for batch_nr, batch in enumerate(tqdm(train_dataloader, desc="Iteration")):
                self.model.train()
                loss = self.mlm_train_step(batch)
                loss = loss / gradient_accumulation_steps
                loss.backward()
                tr_loss += loss.item()
                last_batch = batch_nr == len(train_dataloader) - 1
                if (step + 1) % gradient_accumulation_steps == 0 or last_batch:
                    torch.nn.utils.clip_grad_norm_(self.model.parameters(), max_grad_norm)
                    optimizer.step()
                    scheduler.step()
                    self.model.zero_grad()
                    global_step += 1
                    step = -1
                step += 1
        logger.info("trained for %d optimizer steps, avg loss %.4f", global_step, tr_loss / max(global_step, 1))
        return global_step, tr_loss / max(global_step, 1)
