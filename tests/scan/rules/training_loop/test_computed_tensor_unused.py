"""The ``computed-tensor-unused`` rule (``mlsleuth/scan/rules/training_loop/computed_tensor_unused.py``)."""

from __future__ import annotations

from scan.helpers import check, messages

RULE = {"computed-tensor-unused"}


def test_dropout_result_overwritten_by_layer_reading_the_input():
    src = """
        import torch.nn as nn

        class Head(nn.Module):
            def __init__(self, d, n):
                super().__init__()
                self.drop = nn.Dropout(0.3)
                self.fc = nn.Linear(d, n)

            def forward(self, x):
                h = self.drop(x)  # expect: computed-tensor-unused
                h = self.fc(x)
                return h
        """
    check(src, RULE)
    (f,) = messages(src, "computed-tensor-unused")
    assert "line 12" in f.message and "`x`" in f.message


def test_masked_fill_result_dropped_in_attention():
    check(
        """
        import math
        import torch

        def attend(q, k, v, mask):
            scores = q @ k.transpose(-2, -1) / math.sqrt(q.size(-1))
            masked = scores.masked_fill(mask == 0, float("-inf"))  # expect: computed-tensor-unused
            weights = torch.softmax(scores, dim=-1)
            return weights @ v
        """,
        RULE,
    )


def test_auxiliary_loss_never_added():
    check(
        """
        import torch.nn.functional as F

        def training_step(model, batch, optimizer):
            logits, feats = model(batch["x"])
            ce = F.cross_entropy(logits, batch["y"])
            center = F.mse_loss(feats, model.centers[batch["y"]])  # expect: computed-tensor-unused
            optimizer.zero_grad()
            ce.backward()
            optimizer.step()
            return ce.item()
        """,
        RULE,
    )


def test_augmented_batch_built_in_script_loop_but_raw_batch_trained():
    check(
        """
        import torch
        from torch import nn

        model = nn.Sequential(nn.Linear(16, 32), nn.ReLU(), nn.Linear(32, 2))
        opt = torch.optim.SGD(model.parameters(), lr=0.1)
        loader = [(torch.randn(8, 16), torch.randint(0, 2, (8,))) for _ in range(10)]
        if __name__ == "__main__":
            for epoch in range(3):
                for xb, yb in loader:
                    noisy = xb + 0.1 * torch.randn_like(xb)  # expect: computed-tensor-unused
                    loss = nn.functional.cross_entropy(model(xb), yb)
                    opt.zero_grad()
                    loss.backward()
                    opt.step()
        """,
        RULE,
    )


def test_normalised_audio_features_overwritten_in_dataset():
    check(
        """
        import torch

        class SpeechSet(torch.utils.data.Dataset):
            def __init__(self, feats, mean, std):
                self.feats, self.mean, self.std = feats, mean, std

            def __len__(self):
                return len(self.feats)

            def __getitem__(self, i):
                spec = self.feats[i]
                spec = (spec - self.mean) / self.std
                spec = torch.log1p(self.feats[i].clamp(min=0))
                return spec
        """,
        set(),  # the first rewrite reads spec: nothing is lost there ...
    )
    check(
        """
        import torch

        def featurize(wave, mean, std):
            spec = torch.stft(wave, 400, return_complex=True).abs()
            norm = (spec - mean) / std.clamp(min=1e-5)  # expect: computed-tensor-unused
            spec = torch.log1p(spec)
            return spec
        """,
        RULE,
    )


def test_rl_advantage_normalised_into_a_name_nobody_reads():
    check(
        """
        import torch

        def ppo_loss(ratio, adv, clip=0.2):
            adv_n = (adv - adv.mean()) / (adv.std() + 1e-8)  # expect: computed-tensor-unused
            s1 = ratio * adv
            s2 = torch.clamp(ratio, 1 - clip, 1 + clip) * adv
            return -torch.min(s1, s2).mean()
        """,
        RULE,
    )


def test_annotated_assignment_and_functional_call():
    check(
        """
        import torch
        import torch.nn.functional as F

        def embed(tokens: torch.Tensor, table: torch.Tensor) -> torch.Tensor:
            e: torch.Tensor = F.embedding(tokens, table)
            e = F.normalize(e, dim=-1)  # expect: computed-tensor-unused
            e = F.embedding(tokens, table) * 2
            return e
        """,
        RULE,
    )


# -- clean look-alikes --------------------------------------------------------------------------------------------


def test_chained_rewrites_read_the_previous_value():
    check(
        """
        import torch.nn as nn
        import torch.nn.functional as F

        class Block(nn.Module):
            def __init__(self, d):
                super().__init__()
                self.fc1, self.fc2, self.drop = nn.Linear(d, d), nn.Linear(d, d), nn.Dropout(0.1)

            def forward(self, x):
                h = self.fc1(x)
                h = F.gelu(h)
                h = self.drop(h)
                h = self.fc2(h)
                return x + h
        """,
        RULE,
    )


def test_value_read_in_a_later_branch_or_loop_iteration():
    check(
        """
        import torch

        def run(model, loader, opt, clip):
            prev = None
            for x, y in loader:
                if prev is not None:
                    x = torch.cat([prev, x])
                prev = x.detach()
                loss = torch.nn.functional.mse_loss(model(x), y)
                opt.zero_grad()
                loss.backward()
                opt.step()
        """,
        RULE,
    )


def test_model_call_for_side_effects_and_factories_are_not_pure():
    check(
        """
        import torch

        @torch.no_grad()
        def recalibrate_bn(model, loader):
            model.train()
            for x, _ in loader:
                out = model(x)

        def init_state(n, d):
            h = torch.zeros(n, d)
            h = torch.randn(n, d) * 0.01
            return h
        """,
        RULE,
    )


def test_tuple_targets_underscore_names_and_dynamic_reads():
    check(
        """
        import torch

        def split_heads(x, n):
            top, idx = torch.topk(x, 5)
            _unused = x.softmax(-1)
            return idx

        def debug_step(x):
            probs = torch.softmax(x, -1)
            print(locals())
        """,
        RULE,
    )


def test_module_level_values_outside_loops_and_read_later():
    check(
        """
        import torch

        MEAN = torch.tensor([0.485, 0.456, 0.406]).view(3, 1, 1)
        STD = torch.tensor([0.229, 0.224, 0.225]).view(3, 1, 1)
        for step in range(3):
            z = torch.randn(4, 3, 8, 8)
            last = (z - MEAN) / STD
        print(last.shape)
        """,
        RULE,
    )


def test_in_place_and_out_variants_are_left_alone():
    check(
        """
        import torch
        import torch.nn.functional as F

        def act(x, buf):
            y = F.relu(x, inplace=True)
            z = torch.add(x, 1, out=buf)
            return x
        """,
        RULE,
    )


def test_overwrite_after_a_conditional_read_is_not_flagged():
    check(
        """
        import torch

        def step(x, w, debug):
            y = torch.tanh(x @ w)
            if debug:
                print(y.norm())
            y = torch.sigmoid(x @ w)
            return y
        """,
        RULE,
    )


def test_closure_reads_count():
    check(
        """
        import torch

        def make_loss(target):
            scale = target.abs().mean()
            def loss(pred):
                return ((pred - target) / scale).pow(2).mean()
            return loss
        """,
        RULE,
    )


def test_dropout_inside_training_branch_then_layer_reads_the_undropped_value():
    check(
        """
        import torch.nn.functional as F

        def scorer(v, w1, w2, training, keep=0.8):
            h0 = F.relu(v @ w1)
            if training:
                h = F.dropout(h0, p=1 - keep)  # expect: computed-tensor-unused
            h = F.relu(h0 @ w2)
            return h
        """,
        RULE,
    )


def test_value_set_in_a_loop_body_may_be_read_next_iteration():
    check(
        """
        import torch

        def rollout(policy, obs, steps):
            hidden = None
            for t in range(steps):
                if hidden is not None:
                    obs = obs + hidden
                hidden = torch.tanh(obs)
            return obs
        """,
        RULE,
    )


def test_loss_module_terms_overwritten_instead_of_summed():
    check(
        """
        import torch
        from torch import nn

        mse = nn.MSELoss()

        class Distiller:
            def __init__(self, student, teacher):
                self.student, self.teacher = student, teacher
                self.kd = nn.KLDivLoss(reduction="batchmean")

            def step(self, x, y, opt):
                out = self.student(x)
                with torch.no_grad():
                    soft = self.teacher(x)
                loss = mse(out, y)  # expect: computed-tensor-unused
                loss = self.kd(out.log_softmax(-1), soft.softmax(-1))
                opt.zero_grad()
                loss.backward()
                opt.step()
        """,
        RULE,
    )


def test_loss_module_sum_and_unknown_callables_are_clean():
    check(
        """
        from torch import nn

        def step(model, x, y, opt, criterion):
            ce = nn.CrossEntropyLoss()
            out = model(x)
            loss = ce(out, y)
            loss = loss + 0.1 * criterion(out, y)
            aux = criterion(out, y)
            opt.zero_grad()
            loss.backward()
            opt.step()
        """,
        RULE,
    )


def test_total_loss_with_extra_term_replaced_by_the_partial_sum():
    check(
        """
        from losses import seg_loss, consistency

        def train_step(model, batch, unlabeled, opt, cfg):
            sup = seg_loss(model(batch["img"]), batch["mask"])
            cons = consistency(model, unlabeled)
            total_loss = sup + cfg["lam"] * cons  # expect: computed-tensor-unused
            total_loss = sup
            opt.zero_grad()
            total_loss.backward()
            opt.step()
        """,
        RULE,
    )


def test_arithmetic_rescaled_in_place_of_the_previous_value_is_clean():
    check(
        """
        def train_step(model, batch, opt, accum, step):
            total = model(batch).loss + 0.01 * model.aux_loss
            total = total / accum
            total.backward()
            lr = step * 2
            if step % accum == 0:
                opt.step()
        """,
        RULE,
    )


def test_view_updated_in_place_by_augmented_assignment_is_read():
    check(
        """
        import torch

        def horner(coeffs, roots, order):
            for i in range(1, order + 1):
                new = coeffs.clone()
                out = new.narrow(-1, order - i, i + 1)
                out -= roots.narrow(-1, i - 1, 1) * coeffs.narrow(-1, order - i + 1, i + 1)
                coeffs = new
            return coeffs
        """,
        RULE,
    )


def test_never_read_values_are_info_unless_they_are_loss_terms():
    src = """
        import torch
        import torch.nn.functional as F

        def update(q_net, target_net, batch, opt, gamma):
            with torch.no_grad():
                next_dist = target_net(batch.next_obs)
                next_q = torch.sum(next_dist * target_net.support, dim=2)  # expect: computed-tensor-unused
                best = q_net(batch.next_obs).argmax(1)
            logits = q_net(batch.obs)
            kl = F.kl_div(logits.log_softmax(-1), next_dist[:, 0], reduction="batchmean")  # expect: computed-tensor-unused
            loss = F.cross_entropy(logits[:, 0], best)
            opt.zero_grad()
            loss.backward()
            opt.step()
        """
    check(src, RULE)
    found = {f.location.line: f.severity for f in messages(src, "computed-tensor-unused")}
    assert found == {8: "info", 11: "warning"}


def test_duplicated_line_edit_leftover_and_alias_replacement_are_not_reported():
    check(
        """
        import torch

        def lengths_mask(input_lengths, target_lengths, attn, pos, b, h, w, causal, window):
            in_b = input_lengths.view(-1, 1, 1)
            in_b = input_lengths.view(-1, 1, 1)
            cmap = attn[:, :, pos].reshape(b, h, w)
            cmap = attn[:, :, pos]
            mask = causal.view(1, 1, *causal.shape)
            mask = window
            return in_b * target_lengths, cmap, mask
        """,
        RULE,
    )


# -- results of pure project functions and modules -------------------------------------------------


def test_vision_block_output_overwritten_by_a_call_on_the_input():
    check(
        """
        import torch.nn as nn
        import torch.nn.functional as F

        class Bottleneck(nn.Module):
            def __init__(self, c):
                super().__init__()
                self.reduce = nn.Conv2d(c, c // 4, 1)
                self.expand = nn.Conv2d(c // 4, c, 1)

            def forward(self, x):
                return x + self.expand(F.relu(self.reduce(x)))

        class Backbone(nn.Module):
            def __init__(self, c):
                super().__init__()
                self.block1 = Bottleneck(c)
                self.block2 = Bottleneck(c)

            def forward(self, x):
                h = self.block1(x)  # expect: computed-tensor-unused
                h = self.block2(x)
                return h
        """,
        RULE,
    )


def test_nlp_pooling_helper_result_never_read_is_info():
    src = """
        import torch

        def mean_pool(hidden, mask):
            m = mask.unsqueeze(-1).type_as(hidden)
            return (hidden * m).sum(1) / m.sum(1).clamp_min(1e-6)

        def encode(model, input_ids, attention_mask):
            hidden = model(input_ids, attention_mask=attention_mask)
            pooled = mean_pool(hidden, attention_mask)  # expect: computed-tensor-unused
            return hidden[:, 0]
        """
    check(src, RULE)
    (f,) = messages(src, "computed-tensor-unused")
    assert f.severity == "info"


def test_rl_auxiliary_loss_from_a_helper_never_added(tmp_path):
    from scan.helpers import check_project

    files = {
        "losses.py": """
            import torch.nn.functional as F

            def value_loss(values, returns, clip):
                clipped = values.clamp(-clip, clip)
                return F.mse_loss(clipped, returns)
            """,
        "ppo.py": """
            import torch
            from losses import value_loss

            def ppo_loss(logp, old_logp, adv, values, returns):
                ratio = torch.exp(logp - old_logp)
                policy_loss = -(ratio * adv).mean()
                v_loss = value_loss(values, returns, 10.0)  # expect: computed-tensor-unused
                return policy_loss
            """,
    }
    check_project(tmp_path, files, RULE)


def test_tabular_method_of_a_project_object_overwritten():
    check(
        """
        import torch

        class MinMax:
            def __init__(self, lo, hi):
                self.lo, self.hi = lo, hi

            def apply(self, x):
                return (x - self.lo) / (self.hi - self.lo)

        def prepare(rows, lo, hi):
            scaler = MinMax(lo, hi)
            x = torch.as_tensor(rows)
            feats = scaler.apply(x)  # expect: computed-tensor-unused
            feats = x.float()
            return feats
        """,
        RULE,
    )


def test_audio_helper_method_output_lost_in_lightning_step():
    check(
        """
        import torch
        import lightning as L

        class Tagger(L.LightningModule):
            def pre_emphasis(self, wav, coef=0.97):
                return torch.cat([wav[..., :1], wav[..., 1:] - coef * wav[..., :-1]], dim=-1)

            def training_step(self, batch, batch_idx):
                wav, labels = batch
                x = self.pre_emphasis(wav)  # expect: computed-tensor-unused
                x = self.frontend(wav)
                return torch.nn.functional.binary_cross_entropy_with_logits(self.head(x), labels)
        """,
        RULE,
    )


def test_local_module_instance_result_overwritten_in_script_loop():
    check(
        """
        import torch
        import torch.nn as nn

        class Jitter(nn.Module):
            def forward(self, x):
                return x + 0.01 * torch.randn_like(x)

        jitter = Jitter()
        model = nn.Linear(8, 1)
        for x, y in loader:
            x_aug = jitter(x)  # expect: computed-tensor-unused
            x_aug = x.clone()
            loss = ((model(x_aug) - y) ** 2).mean()
            loss.backward()
        """,
        RULE,
    )


def test_project_calls_with_effects_or_unknown_parts_stay_silent():
    check(
        """
        import torch
        import torch.nn as nn

        def update_queue(queue, keys):
            queue[:len(keys)] = keys
            return queue.mean()

        def noisy(x):
            print(x.shape)
            return x * 2

        class Counter(nn.Module):
            def __init__(self):
                super().__init__()
                self.calls = 0

            def forward(self, x):
                self.calls += 1
                return x * 2

        class Stats(nn.Module):
            def __init__(self, d):
                super().__init__()
                self.bn = nn.BatchNorm1d(d)

            def forward(self, x):
                return self.bn(x)

        class Net(nn.Module):
            def __init__(self, d):
                super().__init__()
                self.counter = Counter()
                self.stats = Stats(d)

            def forward(self, x, queue):
                h = update_queue(queue, x)
                h = noisy(x)
                h = self.counter(x)
                h = self.stats(x)
                h = x + 1
                return h
        """,
        RULE,
    )


def test_ema_method_under_no_grad_and_argument_with_effects_stay_silent():
    check(
        """
        import torch

        class Teacher:
            def __init__(self, student):
                self.params = [p.detach().clone() for p in student.parameters()]

            @torch.no_grad()
            def step(self, student, m):
                for t, s in zip(self.params, student.parameters()):
                    t.mul_(m).add_(s, alpha=1 - m)
                return m

        def scale(x, s):
            return x * s

        def train(student, teacher, it, momentum):
            m = teacher.step(student, momentum)
            m = momentum * 0.5
            batch = scale(next(it), 2.0)
            batch = scale(next(it), 3.0)
            return m, batch
        """,
        RULE,
    )


def test_loss_named_value_recomputed_and_refined_later_is_not_lost():
    check(
        """
        import torch

        def reference_losses(kind):
            table = {"small": torch.tensor([2.0, 1.5, 1.2]), "big": torch.tensor([1.8, 1.1, 0.9])}
            return table[kind] * 1.0

        def compare(kind, logged):
            expected_loss = reference_losses(kind)
            logged = logged[1:]
            expected_loss = reference_losses(kind)[1:]
            return torch.allclose(logged, expected_loss)
        """,
        RULE,
    )
