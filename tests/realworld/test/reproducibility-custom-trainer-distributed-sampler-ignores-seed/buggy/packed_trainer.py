import torch
from torch.utils.data import DataLoader, DistributedSampler, RandomSampler
from transformers import Trainer


class PackedLMTrainer(Trainer):
    """Trainer that feeds pre-packed token blocks and builds its own sampler."""

    def _get_train_sampler(self, train_dataset=None):
        dataset = train_dataset if train_dataset is not None else self.train_dataset
        if self.args.world_size > 1:
            return DistributedSampler(dataset, num_replicas=self.args.world_size,
                                      rank=self.args.process_index, shuffle=True)
        generator = torch.Generator()
        generator.manual_seed(self.args.seed)
        return RandomSampler(dataset, generator=generator)

    def get_train_dataloader(self):
        sampler = self._get_train_sampler()
        return DataLoader(self.train_dataset, batch_size=self.args.per_device_train_batch_size,
                          sampler=sampler, collate_fn=self.data_collator, drop_last=True,
                          num_workers=self.args.dataloader_num_workers, pin_memory=True)
