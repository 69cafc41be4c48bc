"""The ``model-selected-on-test-data`` rule (``mlsleuth/scan/rules/evaluation/model_selected_on_test_data.py``)."""

from __future__ import annotations

from scan.helpers import check

RULE = {"model-selected-on-test-data"}


def test_best_checkpoint_chosen_by_the_test_score():
    src = """
    import copy
    import torch

    def train(model, opt, train_loader, test_loader, epochs):
        best_acc = 0.0
        for epoch in range(epochs):
            run_epoch(model, opt, train_loader)
            test_loss, test_acc = evaluate(model, test_loader)
            if test_acc > best_acc:  # expect: model-selected-on-test-data
                best_acc = test_acc
                torch.save(model.state_dict(), "best.pt")

    def main(model, loaders, args):
        best_acc1 = 0
        for epoch in range(args.epochs):
            acc1 = validate(loaders["test"], model)
            is_best = acc1 > best_acc1  # expect: model-selected-on-test-data
            best_acc1 = max(acc1, best_acc1)
            save_checkpoint({"state_dict": model.state_dict()}, is_best)

    class Runner:
        def fit(self, model, testloader):
            best_loss = float("inf")
            for epoch in range(10):
                metrics = self.evaluate(model, testloader)
                if metrics["loss"] < best_loss:
                    pass
                if self.results["test_loss"] < self.best_loss:  # expect: model-selected-on-test-data
                    self.best_loss = self.results["test_loss"]
                    self.best_model_wts = copy.deepcopy(model.state_dict())

    def with_stopper(model, test_loader, early_stopping):
        for epoch in range(100):
            test_loss = evaluate(model, test_loader)
            early_stopping(test_loss, model)  # expect: model-selected-on-test-data
            if early_stopping.early_stop:
                break
    """
    check(src, RULE)


def test_frameworks_validating_on_the_test_split():
    src = """
    import lightning as L
    from lightning.pytorch.callbacks import ModelCheckpoint
    from transformers import Trainer, TrainingArguments

    def run_lightning(model, train_loader, test_loader):
        ckpt = ModelCheckpoint(monitor="val_acc", mode="max")
        trainer = L.Trainer(max_epochs=10, callbacks=[ckpt])
        trainer.fit(model, train_loader, test_loader)  # expect: model-selected-on-test-data
        trainer.fit(model, train_dataloaders=train_loader, val_dataloaders=test_loader)  # expect: model-selected-on-test-data

    def run_hf(model, ds, tok):
        args = TrainingArguments("out", eval_strategy="epoch", save_strategy="epoch", load_best_model_at_end=True,
                                 metric_for_best_model="accuracy")
        trainer = Trainer(model=model, args=args, train_dataset=ds["train"], eval_dataset=ds["test"])  # expect: model-selected-on-test-data
        trainer.train()
    """
    check(src, RULE)


def test_selection_on_validation_and_test_scores_only_recorded_are_fine():
    src = """
    import copy
    import torch
    import lightning as L
    from lightning.pytorch.callbacks import ModelCheckpoint
    from transformers import Trainer, TrainingArguments

    def train(model, opt, train_loader, val_loader, test_loader, epochs):
        best_val, test_at_best, best_test_seen = 0.0, 0.0, 0.0
        for epoch in range(epochs):
            run_epoch(model, opt, train_loader)
            val_acc = evaluate(model, val_loader)
            test_acc = evaluate(model, test_loader)
            if val_acc > best_val:
                best_val = val_acc
                test_at_best = test_acc
                torch.save(model.state_dict(), "best.pt")
            if test_acc > best_test_seen:
                best_test_seen = test_acc
                print("new best test accuracy", test_acc)
        return test_at_best

    def named_test_but_validation_data(model, val_loader, opt):
        best_acc = 0
        for epoch in range(opt.epochs):
            test_acc, test_acc_top5, test_loss = validate(val_loader, model, opt)
            if test_acc > best_acc:
                best_acc = test_acc
                torch.save({"model": model.state_dict()}, "best.pth")
            early_stopping(test_loss, model)

    def run_lightning(model, train_loader, val_loader, test_loader):
        trainer = L.Trainer(callbacks=[ModelCheckpoint(monitor="val_loss")])
        trainer.fit(model, train_loader, val_loader)
        trainer.test(model, test_loader)

    def run_hf(model, ds):
        args = TrainingArguments("out", load_best_model_at_end=True)
        trainer = Trainer(model=model, args=args, train_dataset=ds["train"], eval_dataset=ds["validation"])
        trainer.train()
        trainer.predict(ds["test"])

    def run_hf_no_selection(model, ds):
        trainer = Trainer(model=model, train_dataset=ds["train"], eval_dataset=ds["test"])
        trainer.train()
    """
    check(src, RULE)
