"""The ``evaluation-on-training-data`` rule (``mlsleuth/scan/rules/evaluation/evaluation_on_training_data.py``)."""

from __future__ import annotations

from scan.helpers import check

RULE = {"evaluation-on-training-data"}


def test_evaluation_loaders_built_on_the_training_split():
    src = """
    import torch
    from torch.utils.data import DataLoader
    from transformers import Trainer

    def loaders(trainset, testset, bs):
        trainloader = DataLoader(trainset, batch_size=bs, shuffle=True)
        testloader = torch.utils.data.DataLoader(trainset, batch_size=bs, shuffle=False)  # expect: evaluation-on-training-data
        return trainloader, testloader

    class Data:
        def setup(self, ds):
            self.train_dataset = ds["train"]
            self.val_loader = DataLoader(self.train_dataset, batch_size=64)  # expect: evaluation-on-training-data
            self.test_dl = DataLoader(dataset=ds["train"], batch_size=64)  # expect: evaluation-on-training-data

    def hf(model, args, tokenized):
        trainer = Trainer(model=model, args=args, train_dataset=tokenized["train"], eval_dataset=tokenized["train"])  # expect: evaluation-on-training-data
        return trainer

    def lightning(trainer, model, train_loader):
        trainer.fit(model, train_dataloaders=train_loader, val_dataloaders=train_loader)  # expect: evaluation-on-training-data
    """
    check(src, RULE)


def test_held_out_loaders_and_samplers_over_training_data_are_fine():
    src = """
    from torch.utils.data import DataLoader, Subset, SubsetRandomSampler

    def loaders(train_set, test_set, val_idx, bs, debug):
        val_loader = DataLoader(train_set, batch_size=bs, sampler=SubsetRandomSampler(val_idx))
        val_loader2 = DataLoader(Subset(train_set, val_idx), batch_size=bs)
        test_loader = DataLoader(test_set, batch_size=bs)
        train_eval_loader = DataLoader(train_set, batch_size=bs)
        test_loader2 = DataLoader(train_set if debug else test_set, batch_size=bs)
        loader = DataLoader(train_set, batch_size=bs)
        return val_loader, val_loader2, test_loader, train_eval_loader, test_loader2, loader

    def hf(Trainer, model, args, tokenized):
        return Trainer(model=model, args=args, train_dataset=tokenized["train"], eval_dataset=tokenized["validation"])
    """
    check(src, RULE)
