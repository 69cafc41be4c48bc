"""The ``softmax-into-logit-loss`` rule (``mlsleuth/scan/rules/loss/softmax_into_logit_loss.py``)."""

from __future__ import annotations

from scan.helpers import check, findings

SOFTMAX_LOGIT = "softmax-into-logit-loss"
SOFTMAX_NLL = "softmax-into-nll-loss"


def test_softmax_assigned_early_and_used_ten_lines_later():
    src = """
    import torch.nn.functional as fn

    def train(model, loader, opt):
        for x, y in loader:
            logits = model(x)
            probs = fn.softmax(logits, 1)
            opt.zero_grad()
            a = 1
            b = 2
            c = 3
            d = 4
            e = 5
            loss = fn.cross_entropy(probs, y)  # expect: softmax-into-logit-loss
            loss.backward()
            opt.step()
    """
    (f,) = findings(src, SOFTMAX_LOGIT)
    check(src, {SOFTMAX_LOGIT})
    assert "probs = fn.softmax(logits, 1) at line 6" in f.observation
    assert "fn.cross_entropy(...)" in f.observation


def test_criterion_bound_in_init_and_model_ending_in_softmax_module():
    src = """
    from torch import nn
    from torch.nn import CrossEntropyLoss as CE

    class Classifier(nn.Module):
        def __init__(self):
            super().__init__()
            self.body = nn.Linear(8, 3)
            self.act = nn.Softmax(dim=-1)  # expect: softmax-into-logit-loss
            self.crit = CE()

        def forward(self, x):
            return self.act(self.body(x))

        def training_step(self, batch, idx):
            x, y = batch
            out = self(x)
            return self.crit(out, y)  # reported where the fix goes: the model's own softmax
    """
    check(src, {SOFTMAX_LOGIT})


def test_sequential_model_and_method_alias_and_sigmoid_into_bce_with_logits():
    src = """
    import torch
    import torch.nn as nn

    model = nn.Sequential(nn.Linear(4, 16), nn.ReLU(), nn.Linear(16, 3), nn.Softmax(dim=1))  # expect: softmax-into-logit-loss
    criterion = nn.CrossEntropyLoss()
    bce = nn.BCEWithLogitsLoss()

    def step(x, y, z, t):
        loss = criterion(model(x), y)
        loss2 = torch.nn.functional.cross_entropy(x.softmax(1), y)  # expect: softmax-into-logit-loss
        loss3 = bce(torch.sigmoid(z), t)  # expect: softmax-into-logit-loss
        return loss + loss2 + loss3
    """
    check(src, {SOFTMAX_LOGIT})


def test_helper_function_consumer_points_at_call_site():
    src = """
    import torch
    import torch.nn.functional as F

    def compute_loss(pred, target):
        return F.cross_entropy(pred, target)

    def fit(model, loader, opt):
        for x, y in loader:
            p = torch.softmax(model(x), dim=-1)
            loss = compute_loss(p, y)  # expect: softmax-into-logit-loss
            loss.backward()

    def evaluate(model, loader):
        for x, y in loader:
            print(compute_loss(model(x), y))
    """
    (f,) = findings(src, SOFTMAX_LOGIT)
    check(src, {SOFTMAX_LOGIT})
    assert "inside compute_loss()" in f.observation


def test_helper_producer_and_criterion_passed_as_argument():
    src = """
    import torch.nn as nn
    import torch.nn.functional as F

    def predict_proba(model, x):
        return F.softmax(model(x), dim=1)

    def train_one_epoch(model, loader, criterion):
        for x, y in loader:
            loss = criterion(predict_proba(model, x), y)  # expect: softmax-into-logit-loss
            loss.backward()

    train_one_epoch(None, [], nn.CrossEntropyLoss())
    """
    check(src, {SOFTMAX_LOGIT})


def test_softmax_for_metrics_distillation_targets_and_eval_only_forward_are_not_flagged():
    src = """
    import torch
    import torch.nn as nn
    import torch.nn.functional as F

    class Net(nn.Module):
        def __init__(self):
            super().__init__()
            self.fc = nn.Linear(4, 3)

        def forward(self, x):
            logits = self.fc(x)
            if self.training:
                return logits
            return F.softmax(logits, dim=1)

    def train(model, teacher, loader, opt, T=2.0):
        crit = nn.CrossEntropyLoss()
        for x, y in loader:
            logits = model(x)
            probs = F.softmax(logits, dim=1)
            acc = (probs.argmax(1) == y).float().mean()
            with torch.no_grad():
                soft_targets = F.softmax(teacher(x) / T, dim=1)
            kd = F.cross_entropy(logits / T, soft_targets)
            kl = F.kl_div(F.log_softmax(logits / T, 1), soft_targets, reduction="batchmean")
            loss = crit(logits, y) + kd + kl + crit(Net()(x), y)
            nll = F.nll_loss(F.log_softmax(logits, 1), y)
            bce = nn.BCELoss()(torch.sigmoid(logits[:, 0]), y.float())
            print(acc, nll, bce)
            loss.backward()
    """
    check(src, {SOFTMAX_LOGIT})
    check(src, {SOFTMAX_NLL})


def test_suppression_comment_silences_one_line():
    src = """
    import torch.nn.functional as F

    def f(z, y):
        return F.cross_entropy(F.softmax(z, 1), y)  # mlsleuth: ignore[softmax-into-logit-loss]
    """
    check(src, {SOFTMAX_LOGIT})


def test_inline_module_call_alias_spellings_and_module_level_criterion():
    src = """
    import torch
    from torch.nn import functional as Fn
    from torch.nn.modules.loss import CrossEntropyLoss
    import torch.nn as tnn

    criterion = CrossEntropyLoss(label_smoothing=0.1)

    def step(model, x, y):
        a = criterion(tnn.Softmax(dim=1)(model(x)), y)  # expect: softmax-into-logit-loss
        b = Fn.cross_entropy(torch.special.softmax(model(x), 1), y)  # expect: softmax-into-logit-loss
        return a + b
    """
    check(src, {SOFTMAX_LOGIT})


def test_observation_names_producer_and_consumer_lines():
    src = """
    import torch.nn as nn
    import torch.nn.functional as F

    crit = nn.CrossEntropyLoss()

    def step(model, x, y):
        probs = F.softmax(model(x), dim=1)
        return crit(probs, y)
    """
    (f,) = findings(src, SOFTMAX_LOGIT)
    assert f.location.line == 8
    assert f.observation.startswith("probs = F.softmax(model(x), dim=1) at line 7 flows into crit(...) at line 8")
    assert f.severity == "error" and f.category == "loss"
    assert "logits" in f.next_test


def test_shadowed_names_and_unrelated_softmax_methods_are_not_flagged():
    src = """
    import torch.nn as nn
    import torch.nn.functional as F

    class Gate:
        def softmax(self, x):
            return x

    def step(model, x, y, gate):
        crit = nn.CrossEntropyLoss()
        out = F.softmax(model(x), dim=1)
        print(out.max())
        out = model(x)
        loss = crit(out, y)
        other = crit(gate.scores(x), y)
        return loss + other
    """
    check(src, {SOFTMAX_LOGIT})


def test_one_element_of_a_model_that_returns_a_tuple_is_followed():
    src = """
    import torch
    import torch.nn as nn
    import torch.nn.functional as F

    class Head(nn.Module):
        def __init__(self):
            super().__init__()
            self.fc = nn.Linear(16, 4)

        def forward(self, h):
            return F.softmax(self.fc(h), dim=-1)  # expect: softmax-into-logit-loss

    class Net(nn.Module):
        def __init__(self):
            super().__init__()
            self.body = nn.Linear(8, 16)
            self.head = Head()
            self.aux = nn.Linear(16, 4)

        def forward(self, x):
            h = self.body(x)
            return self.head(h), self.aux(h)

    net = Net()
    opt = torch.optim.SGD(net.parameters(), lr=0.1)
    for x, y in [(torch.randn(4, 8), torch.randint(0, 4, (4,)))]:
        probs, aux_logits = net(x)
        loss = F.cross_entropy(probs, y)
        loss = loss + 0.3 * F.cross_entropy(aux_logits, y)
        opt.zero_grad()
        loss.backward()
        opt.step()
    """
    check(src, {'softmax-into-logit-loss'})


def test_the_logits_element_of_a_tuple_or_an_unknown_tuple_is_fine():
    src = """
    import torch
    import torch.nn as nn
    import torch.nn.functional as F

    class Net(nn.Module):
        def __init__(self):
            super().__init__()
            self.rnn = nn.LSTM(8, 16, batch_first=True)
            self.fc = nn.Linear(16, 4)

        def forward(self, x):
            out, (h, c) = self.rnn(x)
            logits = self.fc(out[:, -1])
            return logits, F.softmax(logits, dim=-1)

    net = Net()
    for x, y in [(torch.randn(4, 5, 8), torch.randint(0, 4, (4,)))]:
        logits, probs = net(x)
        loss = F.cross_entropy(logits, y)
        out, state = net.rnn(x)
        aux = F.cross_entropy(out[:, -1, :4], y)
        (loss + aux).backward()
    """
    check(src, {'softmax-into-logit-loss'})
