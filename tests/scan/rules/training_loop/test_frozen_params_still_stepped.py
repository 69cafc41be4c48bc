"""The ``frozen-params-still-stepped`` rule (``mlsleuth/scan/rules/training_loop/frozen_params_still_stepped.py``)."""

from __future__ import annotations

from scan.helpers import check, check_project

FS = {"frozen-params-still-stepped"}


def test_freeze_after_adamw_with_kept_grads_nlp():
    check(
        """
        import torch
        from transformers import AutoModelForSequenceClassification

        def train(model, loader, opt, epochs):
            for _ in range(epochs):
                for batch in loader:
                    opt.zero_grad(set_to_none=False)
                    model(**batch).loss.backward()
                    opt.step()

        def main(loader):
            model = AutoModelForSequenceClassification.from_pretrained("bert-base-uncased")
            opt = torch.optim.AdamW(model.parameters(), lr=2e-5)
            train(model, loader, opt, 1)
            for p in model.bert.embeddings.parameters():
                p.requires_grad = False  # expect: frozen-params-still-stepped
            train(model, loader, opt, 3)
        """,
        FS,
    )


def test_freeze_through_a_method_vision_sgd_momentum():
    check(
        """
        import torch
        import torchvision

        net = torchvision.models.resnet18(num_classes=10)
        opt = torch.optim.SGD(net.parameters(), lr=0.1, momentum=0.9)

        def run_epoch(loader):
            for x, y in loader:
                for p in net.parameters():
                    if p.grad is not None:
                        p.grad.zero_()
                torch.nn.functional.cross_entropy(net(x), y).backward()
                opt.step()

        run_epoch(loader)
        net.layer1.requires_grad_(False)  # expect: frozen-params-still-stepped
        run_epoch(loader)
        """,
        FS,
    )


def test_freeze_helper_in_another_module_tabular(tmp_path):
    check_project(
        tmp_path,
        {
            "freezing.py": """
                def set_frozen(model, names, freeze=True):
                    for name, child in model.named_children():
                        if name in names:
                            for p in child.parameters():
                                p.requires_grad = not freeze
            """,
            "train.py": """
                import torch
                from freezing import set_frozen

                class Trainer:
                    def __init__(self, model, opt):
                        self.model, self.opt = model, opt

                    def fit(self, x, y, steps):
                        for _ in range(steps):
                            self.opt.zero_grad(set_to_none=False)
                            torch.nn.functional.mse_loss(self.model(x), y).backward()
                            self.opt.step()

                def main(model, x, y):
                    opt = torch.optim.Adam(model.parameters(), lr=1e-3)
                    trainer = Trainer(model, opt)
                    trainer.fit(x, y, 100)
                    set_frozen(model, ["embed"], freeze=True)  # expect: frozen-params-still-stepped
                    trainer.fit(x, y, 100)
            """,
        },
        FS,
    )


def test_rebuilt_optimizer_or_cleared_grads_are_silent():
    check(
        """
        import torch

        def main(model, loader, train):
            opt = torch.optim.AdamW(model.parameters(), lr=1e-3)
            train(model, loader, opt)
            model.encoder.requires_grad_(False)
            opt = torch.optim.AdamW(filter(lambda p: p.requires_grad, model.parameters()), lr=1e-3)
            train(model, loader, opt)

        def stage_two(model, loader, train):
            opt = torch.optim.SGD(model.parameters(), lr=0.1, momentum=0.9)
            train(model, loader, opt)
            for p in model.encoder.parameters():
                p.requires_grad = False
                p.grad = None
            train(model, loader, opt)

        def step(opt):
            opt.zero_grad(set_to_none=False)
        """,
        FS,
    )


def test_plain_sgd_default_zero_grad_and_gan_toggles_are_silent():
    check(
        """
        import torch

        def plain(model, loader, train):
            opt = torch.optim.SGD(model.parameters(), lr=0.1)
            train(model, loader, opt)
            model.encoder.requires_grad_(False)
            train(model, loader, opt)

        def gan(G, D, loader):
            opt_g = torch.optim.Adam(G.parameters(), lr=2e-4)
            opt_d = torch.optim.Adam(D.parameters(), lr=2e-4)
            for real in loader:
                D.requires_grad_(False)
                opt_g.zero_grad(set_to_none=False)
                (-D(G(real)).mean()).backward()
                opt_g.step()
                D.requires_grad_(True)
                opt_d.zero_grad(set_to_none=False)
                D(real).mean().backward()
                opt_d.step()

        def other_model(model, teacher, loader, train):
            opt = torch.optim.Adam(model.parameters(), lr=1e-3)
            teacher.requires_grad_(False)
            train(model, loader, opt)
        """,
        FS,
    )


def test_freeze_before_the_optimizer_is_silent():
    check(
        """
        import torch

        def main(model, loader, train):
            for p in model.backbone.parameters():
                p.requires_grad = False
            opt = torch.optim.AdamW(model.parameters(), lr=1e-3, weight_decay=0.05)
            train(model, loader, opt)
            opt.zero_grad(set_to_none=False)
        """,
        FS,
    )


def test_optimizer_in_init_and_freeze_in_a_later_method_rl():
    check(
        """
        import torch

        class ActorCritic:
            def __init__(self, encoder, actor, critic):
                self.encoder, self.actor, self.critic = encoder, actor, critic
                params = [*encoder.parameters(), *actor.parameters(), *critic.parameters()]
                self.opt = torch.optim.RMSprop(self.parameters_of_all(), lr=7e-4, momentum=0.9)

            def parameters_of_all(self):
                return [*self.encoder.parameters(), *self.actor.parameters(), *self.critic.parameters()]

            def update(self, loss):
                self.opt.zero_grad(set_to_none=False)
                loss.backward()
                self.opt.step()

            def freeze_encoder(self):
                for p in self.encoder.parameters():
                    p.requires_grad = False  # expect: frozen-params-still-stepped
        """,
        FS,
    )


def test_freeze_method_called_before_or_rebuilding_is_silent_audio():
    check(
        """
        import torch

        class Recognizer:
            def __init__(self, model, freeze_frontend):
                self.model = model
                self.freeze_frontend()
                self.opt = torch.optim.Adam(self.model.parameters(), lr=1e-3)

            def freeze_frontend(self):
                self.model.frontend.requires_grad_(False)

            def step(self, loss):
                self.opt.zero_grad(set_to_none=False)
                loss.backward()
                self.opt.step()

        class Tagger:
            def __init__(self, model):
                self.model = model
                self.opt = torch.optim.AdamW(self.model.parameters(), lr=1e-3)

            def build_optimizer(self):
                self.opt = torch.optim.AdamW([p for p in self.model.parameters() if p.requires_grad], lr=1e-3)

            def freeze_encoder(self):
                self.model.encoder.requires_grad_(False)
                self.build_optimizer()

            def step(self, loss):
                self.opt.zero_grad(set_to_none=False)
                loss.backward()
                self.opt.step()
        """,
        FS,
    )
