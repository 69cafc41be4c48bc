"""The project index (``mlsleuth/scan/analysis/project.py``): rules that follow a value into another module.

Each bug is split across files the way real projects split it (the model in one module, the
loop in another, the wiring in a third), and each has a clean twin that must stay silent.
"""

from __future__ import annotations

import ast
import os

from mlsleuth.scan.analysis.context import FileContext
from mlsleuth.scan.analysis.project import ProjectIndex

from scan.helpers import check_project, project_reported, write_project

LOGIT = {"softmax-into-logit-loss"}
NLL = {"softmax-into-nll-loss"}

MODEL_SOFTMAX = """
    import torch.nn as nn
    import torch.nn.functional as F

    class Net(nn.Module):
        def __init__(self):
            super().__init__()
            self.fc = nn.Linear(8, 3)

        def forward(self, x):
            return F.softmax(self.fc(x), dim=1)  # expect: softmax-into-logit-loss
"""

MODEL_LOGITS = """
    import torch.nn as nn

    class Net(nn.Module):
        def __init__(self):
            super().__init__()
            self.fc = nn.Linear(8, 3)

        def forward(self, x):
            return self.fc(x)

        def predict_proba(self, x):
            return self.forward(x).softmax(dim=1)
"""

TRAIN_TWO_FILES = """
    import torch
    import torch.nn as nn
    from model import Net

    model = Net().to("cpu")
    criterion = nn.CrossEntropyLoss()
    opt = torch.optim.SGD(model.parameters(), lr=0.1)
    for x, y in loader:
        opt.zero_grad()
        loss = criterion(model(x), y)
        loss.backward()
        opt.step()
"""


def test_model_in_one_file_loss_in_another(tmp_path):
    check_project(tmp_path, {"model.py": MODEL_SOFTMAX, "train.py": TRAIN_TWO_FILES}, LOGIT)


def test_clean_twin_of_two_files_stays_silent(tmp_path):
    check_project(tmp_path, {"model.py": MODEL_LOGITS, "train.py": TRAIN_TWO_FILES}, LOGIT)


def test_three_files_through_a_parameter_and_a_package_reexport(tmp_path):
    files = {
        "pkg/__init__.py": "from .nets import Net\n",
        "pkg/nets.py": MODEL_SOFTMAX,
        "engine.py": """
            import torch.nn.functional as F

            def train_one_epoch(net, loader, optimizer):
                for x, y in loader:
                    optimizer.zero_grad()
                    loss = F.cross_entropy(net(x), y)
                    loss.backward()
                    optimizer.step()
        """,
        "main.py": """
            import torch
            from pkg import Net
            from engine import train_one_epoch

            def main(loader):
                model = Net()
                opt = torch.optim.Adam(model.parameters())
                for epoch in range(3):
                    train_one_epoch(model, loader, opt)
        """,
    }
    check_project(tmp_path, files, LOGIT)


def test_three_files_clean_twin(tmp_path):
    files = {
        "pkg/__init__.py": "from .nets import Net\n",
        "pkg/nets.py": MODEL_LOGITS,
        "engine.py": """
            import torch.nn.functional as F

            def train_one_epoch(net, loader, optimizer):
                for x, y in loader:
                    optimizer.zero_grad()
                    loss = F.cross_entropy(net(x), y)
                    loss.backward()
                    optimizer.step()
        """,
        "main.py": """
            import torch
            from pkg import Net
            from engine import train_one_epoch

            def main(loader):
                model = Net()
                opt = torch.optim.Adam(model.parameters())
                for epoch in range(3):
                    train_one_epoch(model, loader, opt)
        """,
    }
    check_project(tmp_path, files, LOGIT)


def test_a_parameter_bound_to_different_models_by_different_callers_is_unknown(tmp_path):
    # one caller passes the softmax model, another a logits model: no single answer, no finding
    files = {
        "softmax_model.py": MODEL_SOFTMAX.replace("  # expect: softmax-into-logit-loss", ""),
        "logit_model.py": MODEL_LOGITS,
        "engine.py": """
            import torch.nn.functional as F

            def fit(net, loader):
                for x, y in loader:
                    F.cross_entropy(net(x), y).backward()
        """,
        "a.py": "from engine import fit\nfrom softmax_model import Net\nfit(Net(), [])\n",
        "b.py": "from engine import fit\nfrom logit_model import Net\nfit(Net(), [])\n",
    }
    check_project(tmp_path, files, LOGIT)


def test_module_import_with_alias_and_builder_function(tmp_path):
    files = {
        "models/__init__.py": "",
        "models/mlp.py": """
            import torch.nn as nn

            def build_mlp(n_in, n_out):
                return nn.Sequential(
                    nn.Linear(n_in, 32),
                    nn.ReLU(),
                    nn.Linear(32, n_out),
                    nn.LogSoftmax(dim=1),
                )

            def build_probs(n_in, n_out):
                return nn.Sequential(nn.Linear(n_in, n_out), nn.Softmax(dim=1))  # expect: softmax-into-nll-loss
        """,
        "train.py": """
            import torch.nn as nn
            import models.mlp as M

            good = M.build_mlp(4, 2)
            bad = M.build_probs(4, 2)
            nll = nn.NLLLoss()

            def step(x, y):
                return nll(good(x), y) + nll(bad(x), y)
        """,
    }
    check_project(tmp_path, files, NLL)


def test_relative_import_and_inherited_forward(tmp_path):
    files = {
        "src/app/__init__.py": "",
        "src/app/base.py": """
            import torch
            import torch.nn as nn

            class Scorer(nn.Module):
                def forward(self, x):
                    return torch.sigmoid(self.head(x))  # expect: softmax-into-logit-loss
        """,
        "src/app/heads.py": """
            import torch.nn as nn
            from .base import Scorer

            class LinearScorer(Scorer):
                def __init__(self):
                    super().__init__()
                    self.head = nn.Linear(4, 1)
        """,
        "src/app/fit.py": """
            import torch.nn as nn
            from .heads import LinearScorer

            class Trainer:
                def __init__(self, scorer):
                    self.scorer = scorer
                    self.loss = nn.BCEWithLogitsLoss()

                def step(self, x, y):
                    return self.loss(self.scorer(x), y)

            def run(x, y):
                return Trainer(LinearScorer()).step(x, y)
        """,
    }
    check_project(tmp_path, files, LOGIT)


def test_suppression_comment_in_the_model_file_is_honoured(tmp_path):
    model = MODEL_SOFTMAX.replace("  # expect: softmax-into-logit-loss", "  # mlsleuth: ignore[softmax-into-logit-loss]")
    write_project(tmp_path, {"model.py": model, "train.py": TRAIN_TWO_FILES})
    assert project_reported(tmp_path, LOGIT) == set()


def test_the_same_model_used_by_two_trainers_is_reported_once(tmp_path):
    files = {"model.py": MODEL_SOFTMAX, "train.py": TRAIN_TWO_FILES, "finetune.py": TRAIN_TWO_FILES}
    check_project(tmp_path, files, LOGIT)


def test_a_file_scanned_alone_does_not_reach_other_files(tmp_path):
    # the scan only follows names into files it lists: scanning train.py alone stays silent
    from mlsleuth.config import Config
    from mlsleuth.scan import scan_paths

    write_project(tmp_path, {"model.py": MODEL_SOFTMAX, "train.py": TRAIN_TWO_FILES})
    report = scan_paths([tmp_path / "train.py"], root=tmp_path, config=Config(), use_cache=False, jobs=1)
    assert [f for f in report.findings if f.rule in LOGIT] == []


def test_cached_result_is_redone_when_the_model_file_changes(tmp_path):
    from mlsleuth.config import Config
    from mlsleuth.scan import scan_paths

    write_project(tmp_path, {"model.py": MODEL_LOGITS, "train.py": TRAIN_TWO_FILES})
    config = Config(cache_dir=str(tmp_path / ".cache"))

    def run():
        return scan_paths([tmp_path], root=tmp_path, config=config, jobs=1)

    first = run()
    assert [f for f in first.findings if f.rule in LOGIT] == []
    again = run()
    assert again.summary.stats["analyzed"] == 0  # nothing changed: every result from the cache
    write_project(tmp_path, {"model.py": MODEL_SOFTMAX})
    third = run()
    assert [(f.location.path, f.location.line) for f in third.findings if f.rule in LOGIT] == [("model.py", 10)]
    assert third.summary.stats["analyzed"] == 2  # model.py itself, and train.py, whose result read model.py


def test_index_resolves_imports_relative_absolute_and_reexported(tmp_path):
    write_project(
        tmp_path,
        {
            "pkg/__init__.py": "from .a import Thing as Alias\n",
            "pkg/a.py": "class Thing:\n    pass\n",
            "pkg/sub/__init__.py": "",
            "pkg/sub/b.py": "from ..a import Thing\nfrom pkg import Alias\nimport pkg.a as mod\nfrom . import c\n",
            "pkg/sub/c.py": "def helper():\n    return 1\n",
        },
    )
    files = {os.path.join(dp, f): os.path.relpath(os.path.join(dp, f), tmp_path) for dp, _d, fs in os.walk(tmp_path) for f in fs}
    index = ProjectIndex(files, [str(tmp_path)])
    b = index.context(str(tmp_path / "pkg/sub/b.py"))
    assert b is not None

    def name_of(expr: str):
        found = index.definition(b, ast.parse(expr, mode="eval").body)
        return (found.ctx.display_path, found.node.name) if found else None

    assert name_of("Thing") == ("pkg/a.py", "Thing")
    assert name_of("Alias") == ("pkg/a.py", "Thing")  # through the package's re-export
    assert name_of("mod.Thing") == ("pkg/a.py", "Thing")
    assert name_of("c.helper") == ("pkg/sub/c.py", "helper")
    assert name_of("Missing") is None
    assert name_of("mod.Missing") is None


def test_index_survives_unparsable_and_missing_modules(tmp_path):
    write_project(tmp_path, {"broken.py": "def (:\n", "user.py": "from broken import Net\nfrom nowhere import Other\n"})
    files = {str(tmp_path / n): n for n in ("broken.py", "user.py")}
    index = ProjectIndex(files, [str(tmp_path)])
    user = index.context(str(tmp_path / "user.py"))
    assert isinstance(user, FileContext)
    assert index.definition(user, ast.Name("Net")) is None
    assert index.definition(user, ast.Name("Other")) is None
    assert index.context(str(tmp_path / "broken.py")) is None
    assert index.context(str(tmp_path / "not_listed.py")) is None


def test_caller_in_a_chained_call_is_found_again_after_other_rules_asked(tmp_path):
    # ``Trainer(model).fit(...)``: the constructor call and the outer call start at the same column;
    # the loop rules ask for the same callers first and the answer is reused from the index's cache
    files = {
        "model.py": """
            import torch
            import torch.nn as nn

            class Scorer(nn.Module):
                def __init__(self):
                    super().__init__()
                    self.fc = nn.Linear(4, 1)

                def forward(self, x):
                    return torch.sigmoid(self.fc(x))  # expect: softmax-into-logit-loss
        """,
        "trainer.py": """
            import torch
            import torch.nn as nn

            class Trainer:
                def __init__(self, scorer, lr=1e-3):
                    self.scorer = scorer
                    self.objective = nn.BCEWithLogitsLoss()
                    self.optimizer = torch.optim.Adam(scorer.parameters(), lr=lr)

                def step(self, x, y):
                    loss = self.objective(self.scorer(x), y)
                    self.optimizer.zero_grad()
                    loss.backward()
                    self.optimizer.step()
                    return loss.item()

                def fit(self, loader):
                    for x, y in loader:
                        self.step(x, y)
        """,
        "main.py": """
            from model import Scorer
            from trainer import Trainer

            Trainer(Scorer(), lr=0.01).fit([])
        """,
    }
    check_project(tmp_path, files, LOGIT)


def test_a_dependent_file_known_to_the_cache_is_redone_when_only_its_dependency_changed(tmp_path):
    # files older than the cache's racy window get stat entries: the trainer is then reused by size
    # and mtime, and must still be re-analysed (not dropped as a non-candidate) when model.py changes
    from mlsleuth.config import Config
    from mlsleuth.scan import scan_paths

    write_project(tmp_path, {"model.py": MODEL_LOGITS, "train.py": TRAIN_TWO_FILES, "other.py": "x = 1\n"})
    old = 1_600_000_000
    for name in ("model.py", "train.py", "other.py"):
        os.utime(tmp_path / name, (old, old))
    config = Config(cache_dir=str(tmp_path / ".cache"))

    def run():
        return scan_paths([tmp_path], root=tmp_path, config=config, jobs=1)

    run()
    assert run().summary.stats["analyzed"] == 0
    write_project(tmp_path, {"model.py": MODEL_SOFTMAX})
    os.utime(tmp_path / "model.py", (old + 10, old + 10))
    third = run()
    assert third.summary.stats["analyzed"] == 2
    assert [(f.location.path, f.location.line) for f in third.findings if f.rule in LOGIT] == [("model.py", 10)]


CONFIG_FILES = {
    "config.py": """
        from model import Net

        CONFIG = {"model": Net, "lr": 0.1}
        SETTINGS = dict(model=Net, epochs=3)
    """,
    "train.py": """
        import torch
        import torch.nn as nn
        from config import CONFIG, SETTINGS

        def main(loader):
            model = CONFIG["model"]()
            other = SETTINGS["model"]().to("cpu")
            criterion = nn.CrossEntropyLoss()
            opt = torch.optim.SGD(model.parameters(), lr=CONFIG["lr"])
            for x, y in loader:
                opt.zero_grad()
                loss = criterion(model(x), y) + criterion(other(x), y)
                loss.backward()
                opt.step()
    """,
}


def test_model_class_named_in_a_config_dict_of_another_module(tmp_path):
    check_project(tmp_path, {"model.py": MODEL_SOFTMAX, **CONFIG_FILES}, LOGIT)


def test_config_dict_clean_twin(tmp_path):
    check_project(tmp_path, {"model.py": MODEL_LOGITS, **CONFIG_FILES}, LOGIT)
