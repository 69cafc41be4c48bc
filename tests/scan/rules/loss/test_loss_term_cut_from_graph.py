"""The ``loss-term-cut-from-graph`` rule (``mlsleuth/scan/rules/loss/loss_term_cut_from_graph.py``)."""

from __future__ import annotations

from scan.helpers import check, messages

TERM = {"loss-term-cut-from-graph"}


def test_regulariser_added_as_python_number():
    src = """
        def train(model, loader, opt, crit, lam=1e-4):
            for x, y in loader:
                opt.zero_grad()
                l2 = sum(p.pow(2).sum() for p in model.parameters())
                penalty = lam * l2.item()  # expect: loss-term-cut-from-graph
                loss = crit(model(x), y) + penalty
                loss.backward()
                opt.step()
        """
    check(src, TERM)
    (f,) = messages(src, "loss-term-cut-from-graph")
    assert "l2.item()" in f.message


def test_item_used_only_for_logging_is_fine():
    check(
        """
        def train(model, loader, opt, crit, lam=1e-4):
            for x, y in loader:
                opt.zero_grad()
                l2 = sum(p.pow(2).sum() for p in model.parameters())
                loss = crit(model(x), y) + lam * l2
                logged = loss.item() + 0.0
                loss.backward()
                opt.step()
                print(logged, float(l2) * lam)
        """,
        TERM,
    )


# -- positives from several domains and through several hops ---------------------------------------


def test_vision_orthogonality_penalty_detached():
    check(
        """
        import torch
        import torch.nn.functional as F

        def train(model, loader, opt, lam=1e-3):
            for x, y in loader:
                opt.zero_grad()
                logits, feats = model(x)
                ce = F.cross_entropy(logits, y)
                ortho = (feats.T @ feats - torch.eye(feats.shape[1])).pow(2).sum().detach()  # expect: loss-term-cut-from-graph
                loss = ce + lam * ortho
                loss.backward()
                opt.step()
        """,
        TERM,
    )


def test_nlp_auxiliary_loss_computed_under_no_grad():
    check(
        """
        import torch

        def train(student, teacher, loader, opt, args):
            for batch in loader:
                out = student(batch["input_ids"])
                with torch.no_grad():
                    t = teacher(batch["input_ids"])
                    kd = torch.nn.functional.kl_div(out.log_softmax(-1), t.softmax(-1), reduction="batchmean")  # expect: loss-term-cut-from-graph
                loss = torch.nn.functional.cross_entropy(out, batch["labels"])
                loss = loss + args.kd_weight * kd
                loss.backward()
                opt.step()
                opt.zero_grad()
        """,
        TERM,
    )


def test_timeseries_penalty_from_numpy_helper_in_a_dict_of_losses():
    check(
        """
        import numpy as np
        import torch

        def smoothness(pred):
            diff = pred[:, 1:] - pred[:, :-1]
            return float(np.mean(np.abs(diff.detach().cpu().numpy())))  # expect: loss-term-cut-from-graph

        def train(net, loader, opt):
            for x, y in loader:
                pred = net(x)
                losses = {}
                losses["mse"] = torch.nn.functional.mse_loss(pred, y)
                losses["smooth"] = 0.1 * torch.tensor(smoothness(pred))
                loss = sum(losses.values())
                opt.zero_grad()
                loss.backward()
                opt.step()
        """,
        TERM,
    )


def test_rl_entropy_bonus_through_data_and_augmented_assignment():
    check(
        """
        import torch

        def update(policy, value_fn, rollouts, opt, ent_coef=0.01):
            for obs, act, adv, ret in rollouts:
                dist = policy(obs)
                loss = -(dist.log_prob(act) * adv).mean()
                loss += 0.5 * (value_fn(obs).squeeze(-1) - ret).pow(2).mean()
                entropy = dist.entropy().mean().data  # expect: loss-term-cut-from-graph
                loss -= ent_coef * entropy
                opt.zero_grad()
                loss.backward()
                opt.step()
        """,
        TERM,
    )


def test_audio_term_from_a_class_attribute_set_under_no_grad():
    check(
        """
        import torch

        class Trainer:
            def __init__(self, model, opt, spec_weight=0.5):
                self.model = model
                self.opt = opt
                self.spec_weight = spec_weight

            def spectral(self, wav, target):
                with torch.no_grad():
                    self.spec_loss = (torch.stft(wav, 256, return_complex=True).abs()  # expect: loss-term-cut-from-graph
                                      - torch.stft(target, 256, return_complex=True).abs()).abs().mean()

            def fit(self, loader):
                for noisy, clean in loader:
                    wav = self.model(noisy)
                    self.spectral(wav, clean)
                    loss = (wav - clean).abs().mean() + self.spec_weight * self.spec_loss
                    self.opt.zero_grad()
                    loss.backward()
                    self.opt.step()
        """,
        TERM,
    )


def test_tabular_penalty_rebuilt_as_new_tensor_through_accelerate():
    check(
        """
        import torch

        def fit(accelerator, model, loader, optimizer, lam=1e-2):
            for xb, yb in loader:
                out = model(xb)
                sparsity = torch.tensor(model.gate.weight.abs().sum().tolist(), device=out.device)  # expect: loss-term-cut-from-graph
                loss = torch.nn.functional.mse_loss(out, yb) + lam * sparsity
                accelerator.backward(loss)
                optimizer.step()
                optimizer.zero_grad()
        """,
        TERM,
    )


# -- clean look-alikes -----------------------------------------------------------------------------


def test_detached_targets_and_weights_keep_the_gradient():
    check(
        """
        import torch
        import torch.nn.functional as F

        def train(model, target_net, loader, opt, gamma=0.99):
            for s, a, r, s2, done in loader:
                q = model(s).gather(1, a)
                with torch.no_grad():
                    target = r + gamma * target_net(s2).max(1, keepdim=True)[0] * (1 - done)
                td = F.smooth_l1_loss(q, target)
                w = torch.softmax(q, 0).detach()
                weighted = (w * (q - target).pow(2)).mean()
                loss = td + weighted
                opt.zero_grad()
                loss.backward()
                opt.step()
        """,
        TERM,
    )


def test_vq_commitment_and_straight_through_are_fine():
    check(
        """
        import torch.nn.functional as F

        def train(model, loader, opt, beta=0.25):
            for x in loader:
                z_e = model.enc(x)
                z_q = model.codebook(z_e)
                st = z_e + (z_q - z_e).detach()
                rec = F.mse_loss(model.dec(st), x)
                loss = rec + F.mse_loss(z_e.detach(), z_q) + beta * F.mse_loss(z_e, z_q.detach())
                opt.zero_grad()
                loss.backward()
                opt.step()
        """,
        TERM,
    )


def test_score_function_trick_minus_its_detached_copy_is_fine():
    check(
        """
        def train(policy, loader, opt):
            for obs, act, reward in loader:
                logp = policy(obs).log_prob(act).sum()
                surrogate = reward * (logp - logp.detach()).exp()
                loss = -surrogate + logp - logp.detach()
                opt.zero_grad()
                loss.backward()
                opt.step()
        """,
        TERM,
    )


def test_learnable_temperature_times_detached_value_is_fine():
    check(
        """
        import torch

        class SAC:
            def __init__(self, actor, lr=3e-4):
                self.actor = actor
                self.log_alpha = torch.zeros(1, requires_grad=True)
                self.alpha_opt = torch.optim.Adam([self.log_alpha], lr=lr)
                self.target_entropy = -2.0

            def update(self, batches):
                for obs in batches:
                    _, logp = self.actor(obs)
                    alpha_loss = -(self.log_alpha * (logp + self.target_entropy).detach()).mean()
                    reg = self.log_alpha.pow(2)
                    total = alpha_loss + 1e-3 * reg
                    self.alpha_opt.zero_grad()
                    total.backward()
                    self.alpha_opt.step()
        """,
        TERM,
    )


def test_constant_accumulator_and_metric_under_no_grad_are_fine():
    check(
        """
        import torch

        def train(model, loader, opt, crit, heads):
            for x, ys in loader:
                outs = model(x)
                loss = torch.tensor(0.0, device=x.device)
                for out, y in zip(outs, ys):
                    loss = loss + crit(out, y)
                with torch.no_grad():
                    acc = (outs[0].argmax(-1) == ys[0]).float().mean()
                total = loss + 0.0
                opt.zero_grad()
                total.backward()
                opt.step()
                print(acc.item(), (loss.detach() + acc).item())
        """,
        TERM,
    )


def test_normalised_by_its_own_detached_value_is_fine():
    check(
        """
        def train(model, loader, opt, crit):
            for x, y in loader:
                a, b = model(x)
                la = crit(a, y)
                lb = crit(b, y)
                loss = la / la.detach() + lb / lb.detach()
                opt.zero_grad()
                loss.backward()
                opt.step()
        """,
        TERM,
    )


# -- across modules: a loss object's __call__, a helper's tuple, a dict passed in ---------------------


def test_regulariser_weights_detached_in_a_helper_of_another_module(tmp_path):
    from scan.helpers import check_project

    check_project(
        tmp_path,
        {
            "geometry.py": """
                import torch

                def blend(anchors, moved, query):
                    weights = torch.softmax(-torch.cdist(query, anchors), -1)
                    weights = weights.detach()  # expect: loss-term-cut-from-graph
                    return weights @ moved, weights
                """,
            "losses.py": """
                import torch

                class Criterion:
                    def __init__(self, opt):
                        self.opt = opt

                    def entropy(self, w):
                        return -(w * torch.log(w + 1e-8)).sum(-1).mean()

                    def __call__(self, batch, outputs):
                        self.parts = {}
                        self.parts["fit"] = (outputs["shape"] - batch["target"]).pow(2).mean()
                        self.parts["sharp"] = self.entropy(outputs["weights"]) * self.opt.sharp_weight
                        return sum(self.parts.values())
                """,
            "train.py": """
                import torch
                from geometry import blend
                from losses import Criterion

                def train(net, loader, opt):
                    criterion = Criterion(opt)
                    optimizer = torch.optim.Adam(net.parameters())
                    for batch in loader:
                        anchors, moved = net(batch["source"])
                        shape, weights = blend(anchors, moved, batch["source"])
                        outputs = {"shape": shape, "weights": weights}
                        loss = criterion(batch, outputs)
                        optimizer.zero_grad()
                        loss.backward()
                        optimizer.step()
                """,
        },
        TERM,
    )


def test_weights_kept_live_for_the_loss_and_detached_only_for_export(tmp_path):
    from scan.helpers import check_project

    check_project(
        tmp_path,
        {
            "geometry.py": """
                import numpy as np
                import torch

                def blend(anchors, moved, query):
                    weights = torch.softmax(-torch.cdist(query, anchors), -1)
                    return weights @ moved, weights

                def export(weights, path):
                    np.save(path, weights.detach().cpu().numpy())
                """,
            "train.py": """
                import torch
                from geometry import blend, export

                def train(net, loader, opt, sharp_weight=0.1):
                    optimizer = torch.optim.Adam(net.parameters())
                    for step, batch in enumerate(loader):
                        anchors, moved = net(batch["source"])
                        shape, weights = blend(anchors, moved, batch["source"])
                        losses = {"fit": (shape - batch["target"]).pow(2).mean(),
                                  "sharp": sharp_weight * -(weights * torch.log(weights + 1e-8)).sum(-1).mean()}
                        loss = sum(losses.values())
                        optimizer.zero_grad()
                        loss.backward()
                        optimizer.step()
                        export(weights, f"w{step}.npy")
                """,
        },
        TERM,
    )


def test_lightning_training_step_returns_a_loss_with_a_detached_penalty():
    check(
        """
        import torch
        import torch.nn.functional as F
        import lightning as L

        class Segmenter(L.LightningModule):
            def __init__(self, net, tv_weight=0.1):
                super().__init__()
                self.net = net
                self.tv_weight = tv_weight

            def training_step(self, batch, batch_idx):
                img, mask = batch
                logits = self.net(img)
                probs = logits.sigmoid()
                tv = (probs[..., 1:, :] - probs[..., :-1, :]).abs().mean().item()  # expect: loss-term-cut-from-graph
                loss = F.binary_cross_entropy_with_logits(logits, mask) + self.tv_weight * tv
                self.log("train/tv", tv)
                return {"loss": loss}

            def configure_optimizers(self):
                return torch.optim.Adam(self.parameters(), lr=1e-3)
        """,
        TERM,
    )


def test_lightning_training_step_logging_a_detached_copy_is_fine():
    check(
        """
        import torch
        import torch.nn.functional as F
        import lightning as L

        class Segmenter(L.LightningModule):
            def __init__(self, net):
                super().__init__()
                self.net = net

            def training_step(self, batch, batch_idx):
                img, mask = batch
                logits = self.net(img)
                loss = F.binary_cross_entropy_with_logits(logits, mask)
                tv = (logits[..., 1:, :] - logits[..., :-1, :]).abs().mean()
                self.log("train/tv", tv.detach().item())
                return loss + 0.1 * tv

            def configure_optimizers(self):
                return torch.optim.Adam(self.parameters(), lr=1e-3)
        """,
        TERM,
    )


def test_normalising_constants_and_settings_are_not_cut_terms():
    check(
        """
        import math
        import numpy as np
        import torch

        def fit(gp, x, y, opt, steps=100, jitter=1e-4):
            for i in range(steps):
                n = x.shape[0]
                K = gp.kernel(x, x) + jitter * torch.eye(n)
                L = torch.linalg.cholesky(K)
                alpha = torch.cholesky_solve(y.unsqueeze(-1), L)
                warm = float(min(1.0, i / 10))
                loss = 0.5 * (y @ alpha.squeeze(-1)) + L.diagonal().log().sum() + 0.5 * n * math.log(2 * math.pi)
                loss = loss + np.log(256.0) * len(y) + torch.tensor(warm)
                opt.zero_grad()
                loss.backward()
                opt.step()
        """,
        TERM,
    )


def test_tensor_parameter_times_detached_weights_is_fine():
    check(
        """
        import torch.nn.functional as F

        def step(model, batch, opt, weights, lam):
            logits = model(batch["x"])
            per_sample = F.cross_entropy(logits, batch["y"], reduction="none")
            loss = per_sample.mean() + lam * (per_sample * weights.detach()).mean()
            opt.zero_grad()
            loss.backward()
            opt.step()

        def fit(model, loader, opt, weights):
            for batch in loader:
                step(model, batch, opt, weights, 0.1)
        """,
        TERM,
    )
