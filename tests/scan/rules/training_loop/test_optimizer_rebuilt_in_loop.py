"""The ``optimizer-rebuilt-in-loop`` rule (``mlsleuth/scan/rules/training_loop/optimizer_rebuilt_in_loop.py``)."""

from __future__ import annotations

from scan.helpers import check, messages

REBUILT = {"optimizer-rebuilt-in-loop"}


def test_stateful_optimizer_built_in_the_batch_loop_is_an_error():
    src = """
        import torch
        from torch.optim import AdamW as W

        def train(model, loader, lr):
            for x, y in loader:
                opt = torch.optim.Adam(model.parameters(), lr=lr)  # expect: optimizer-rebuilt-in-loop
                opt.zero_grad()
                torch.nn.functional.cross_entropy(model(x), y).backward()
                opt.step()

        def train_momentum(net, batches):
            step = 0
            while step < 1000:
                x, y = batches[step % len(batches)]
                sgd = torch.optim.SGD(net.parameters(), 0.1, 0.9)  # expect: optimizer-rebuilt-in-loop
                sgd.zero_grad()
                ((net(x) - y) ** 2).mean().backward()
                sgd.step()
                step += 1

        def train_aliased(model, loader):
            for batch in loader:
                optimizer = W(model.parameters(), lr=3e-4, weight_decay=0.01)  # expect: optimizer-rebuilt-in-loop
                loss = model(**batch).loss
                loss.backward()
                optimizer.step()
                optimizer.zero_grad()
        """
    check(src, REBUILT)
    assert {f.severity for f in messages(src, "optimizer-rebuilt-in-loop")} == {"error"}


def test_optimizers_built_once_per_trial_fold_or_stage_are_fine():
    check(
        """
        import torch
        from torch import nn

        def tune(loader, lrs):
            for lr in lrs:  # one optimizer per trial, many steps each
                model = nn.Linear(4, 2)
                opt = torch.optim.Adam(model.parameters(), lr=lr)
                for x, y in loader:
                    opt.zero_grad()
                    nn.functional.cross_entropy(model(x), y).backward()
                    opt.step()

        def lr_probe(make_model, batch, lrs):
            for lr in lrs:  # a fresh model per probe: one step each is the point
                model = make_model()
                opt = torch.optim.Adam(model.parameters(), lr=lr)
                opt.zero_grad()
                nn.functional.mse_loss(model(batch[0]), batch[1]).backward()
                opt.step()

        def ensembles(models, loader):
            for m in models:
                opt = torch.optim.AdamW(m.parameters())
                for x, y in loader:
                    opt.zero_grad()
                    nn.functional.mse_loss(m(x), y).backward()
                    opt.step()

        def plain_sgd(model, loader):
            for x, y in loader:  # SGD without momentum keeps no state: rebuilding only costs time
                opt = torch.optim.SGD(model.parameters(), lr=0.1)
                opt.zero_grad()
                nn.functional.mse_loss(model(x), y).backward()
                opt.step()

        def once(model, loader, epochs):
            opt = torch.optim.Adam(model.parameters())
            for _ in range(epochs):
                for x, y in loader:
                    opt.zero_grad()
                    nn.functional.mse_loss(model(x), y).backward()
                    opt.step()

        def stages(model, loader):
            for stage, params in enumerate([model.head.parameters(), model.parameters()]):
                opt = torch.optim.AdamW(params, lr=1e-3 / (stage + 1))
                for x, y in loader:
                    opt.zero_grad()
                    nn.functional.mse_loss(model(x), y).backward()
                    opt.step()
        """,
        REBUILT,
    )


def test_lightning_manual_optimization_fetches_the_same_optimizer():
    check(
        """
        import torch
        import lightning as L

        class Module(L.LightningModule):
            def training_step(self, batch, batch_idx):
                opt = self.optimizers()
                opt.zero_grad()
                loss = self.compute_loss(batch)
                self.manual_backward(loss)
                opt.step()

            def configure_optimizers(self):
                return torch.optim.Adam(self.parameters(), lr=1e-3)
        """,
        REBUILT,
    )


MAPPER = """
    import torch

    class Mapper:
        def __init__(self, decoder, lr=5e-3):
            self.decoder = decoder
            self.lr = lr
            self.persistent = torch.optim.Adam(decoder.parameters(), lr=lr)

        def optimize(self, pts, target):
            optim = torch.optim.Adam(self.decoder.parameters(), lr=self.lr){mark}
            for _ in range(5):
                optim.zero_grad()
                (self.decoder(pts) - target).abs().mean().backward()
                optim.step()

        def optimize_kept(self, pts, target):
            for _ in range(5):
                self.persistent.zero_grad()
                (self.decoder(pts) - target).abs().mean().backward()
                self.persistent.step()

        def relocalise(self, pts, target):
            pose = torch.zeros(6, requires_grad=True)
            optim = torch.optim.Adam([pose], lr=1e-2)
            for _ in range(10):
                optim.zero_grad()
                (self.decoder(pts + pose[:3]) - target).pow(2).mean().backward()
                optim.step()
"""


def test_method_that_builds_its_optimizer_is_called_once_per_frame_from_another_module(tmp_path):
    from scan.helpers import check_project

    files = {
        "mapper.py": MAPPER.replace("{mark}", "  # expect: optimizer-rebuilt-in-loop"),
        "run.py": """
            from mapper import Mapper

            def main(decoder, frames):
                mapper = Mapper(decoder)
                for pts, target in frames:
                    mapper.optimize(pts, target)
                    mapper.optimize_kept(pts, target)
                    mapper.relocalise(pts, target)
        """,
    }
    check_project(tmp_path, files, {"optimizer-rebuilt-in-loop"})


def test_a_new_instance_per_iteration_or_a_single_call_is_fine(tmp_path):
    from scan.helpers import check_project

    files = {
        "mapper.py": MAPPER.replace("{mark}", ""),
        "run.py": """
            from mapper import Mapper

            def trials(make_decoder, frames):
                for seed in range(5):
                    mapper = Mapper(make_decoder(seed))
                    for pts, target in frames:
                        pass
                    mapper.optimize(*frames[0])

            def once(decoder, pts, target):
                Mapper(decoder).optimize(pts, target)
        """,
    }
    check_project(tmp_path, files, {"optimizer-rebuilt-in-loop"})


def test_epoch_function_rebuilding_momentum_sgd_for_the_same_model():
    src = """
        import torch

        def run_epoch(model, loader, lr):
            optimizer = torch.optim.SGD(model.parameters(), lr=lr, momentum=0.9)  # expect: optimizer-rebuilt-in-loop
            for x, y in loader:
                optimizer.zero_grad()
                model(x).sum().backward()
                optimizer.step()

        def run_epoch_plain(model, loader, lr):
            optimizer = torch.optim.SGD(model.parameters(), lr=lr)
            for x, y in loader:
                optimizer.zero_grad()
                model(x).sum().backward()
                optimizer.step()

        def main(model, loader, folds):
            for epoch in range(30):
                run_epoch(model, loader, 0.1 * 0.5 ** (epoch // 5))
                run_epoch_plain(model, loader, 0.1)
            for fold in folds:
                fresh = make_model()
                run_epoch(fresh, fold, 0.1)
        """
    check(src, {"optimizer-rebuilt-in-loop"})


def test_a_stage_that_trains_for_several_epochs_per_call_is_fine():
    # a curriculum: each stage gets its own optimizer and runs its own epochs over its own data
    src = """
        import torch

        class CurriculumTrainer:
            def __init__(self, model, stages, lr):
                self.model, self.stages, self.lr = model, stages, lr

            def _train_stage(self, dataset, epochs):
                optimizer = torch.optim.AdamW(self.model.parameters(), lr=self.lr)
                for epoch in range(epochs):
                    for x, y in dataset:
                        optimizer.zero_grad()
                        self.model(x, y).backward()
                        optimizer.step()

            def run(self):
                for dataset, epochs in self.stages:
                    self._train_stage(dataset, epochs)
        """
    check(src, {"optimizer-rebuilt-in-loop"})
