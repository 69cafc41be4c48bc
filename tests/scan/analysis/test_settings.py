"""``scan/analysis/settings.py``: the default literal a configuration expression starts as."""

from __future__ import annotations

import ast
import textwrap

from mlsleuth.scan.analysis import settings
from mlsleuth.scan.analysis.context import FileContext


def _value_at(source: str, marker: str) -> object:
    """The default of the expression passed as ``x=`` in the call whose line holds ``marker``."""
    ctx = FileContext.from_source(textwrap.dedent(source).lstrip("\n"))
    for call in ctx.calls():
        if marker in ctx.line_text(call.lineno):
            for kw in call.keywords:
                if kw.arg == "x":
                    return settings.default_value(ctx, kw.value)
    raise AssertionError(f"no call with x= on a line holding {marker!r}")


def test_dataclass_field_default_through_an_instance():
    src = """
        from dataclasses import dataclass

        @dataclass
        class Config:
            samples_per_gpu: int = 1
            lr: float = 2e-4

        def main():
            cfg = Config()
            use(x=cfg.samples_per_gpu)  # HERE
        """
    assert _value_at(src, "HERE") == 1


def test_keyword_passed_to_the_config_wins_over_the_field_default():
    src = """
        class Config:
            batch = 8

        cfg = Config(batch=64)
        use(x=cfg.batch)  # HERE
        """
    assert _value_at(src, "HERE") == 64


def test_lightning_hparams_read_the_init_default():
    src = """
        import lightning as L

        class M(L.LightningModule):
            def __init__(self, lr=1e-3, weight_decay=0.05):
                super().__init__()
                self.save_hyperparameters()

            def configure_optimizers(self):
                hp = self.hparams
                use(x=hp.weight_decay)  # HERE
                use(x=self.hparams.lr)  # THERE
        """
    assert _value_at(src, "HERE") == 0.05
    assert _value_at(src, "THERE") == 1e-3


def test_argparse_default_dict_entry_and_parameter_default():
    src = """
        import argparse
        CFG = dict(accum_steps=4)

        def train(steps=100):
            p = argparse.ArgumentParser()
            p.add_argument("--eval-interval", type=int, default=4000)
            p.add_argument("--seed", type=int)
            args = p.parse_args()
            use(x=args.eval_interval)  # ARG
            use(x=args.seed)  # NODEFAULT
            use(x=CFG["accum_steps"])  # DICT
            use(x=steps)  # PARAM
        """
    assert _value_at(src, "ARG") == 4000
    assert _value_at(src, "NODEFAULT") is settings.UNKNOWN
    assert _value_at(src, "DICT") == 4
    assert _value_at(src, "PARAM") == 100


def test_runtime_values_stay_unknown():
    src = """
        import os

        def main(loader):
            n = int(os.environ["WORLD_SIZE"])
            use(x=n)  # ENV
            use(x=len(loader))  # LEN
        """
    assert _value_at(src, "ENV") is settings.UNKNOWN
    assert _value_at(src, "LEN") is settings.UNKNOWN


def test_a_config_parameter_follows_its_callers_across_files(tmp_path):
    from mlsleuth.scan.analysis.project import ProjectIndex

    (tmp_path / "config.py").write_text("class Cfg:\n    world: int = 2\n    seed: int = 7\n")
    (tmp_path / "data.py").write_text("def build(cfg):\n    use(x=cfg.seed)\n")
    (tmp_path / "train.py").write_text("from config import Cfg\nfrom data import build\n\ncfg = Cfg()\nbuild(cfg)\n")
    files = {str(p): p.read_text() for p in tmp_path.glob("*.py")}
    index = ProjectIndex(files, [str(tmp_path)])
    ctx = index.context(str(tmp_path / "data.py"))
    call = next(c for c in ctx.calls() if getattr(c.func, "id", None) == "use")
    assert settings.default_value(ctx, call.keywords[0].value) == 7
    assert isinstance(call.keywords[0].value, ast.Attribute)


def test_a_torch_dtype_field_is_a_literal_named_by_its_file():
    src = """
        from dataclasses import dataclass
        import torch as T

        @dataclass
        class Config:
            dtype: T.dtype = T.bfloat16

        def main(cfg=Config()):
            use(x=cfg.dtype)  # HERE
        """
    ctx = FileContext.from_source(textwrap.dedent(src).lstrip("\n"))
    call = next(c for c in ctx.calls() if "HERE" in ctx.line_text(c.lineno))
    found = settings.default_expr(ctx, call.keywords[0].value)
    assert found is not None and found[0].qualname(found[1]) == "torch.bfloat16"


def test_an_annotated_config_parameter_reads_the_class_field_default():
    src = """
        from typing import Optional

        class TrainerConfig:
            seed: Optional[int] = None
            val_fraction: float = 0.1

        class Trainer:
            def __init__(self, cfg: TrainerConfig):
                use(x=cfg.val_fraction)  # HERE
        """
    assert _value_at(src, "HERE") == 0.1


def test_tyro_cli_reads_the_dataclass_field_default():
    src = """
        from dataclasses import dataclass
        import tyro

        @dataclass
        class Args:
            tau: float = 0.005

        args = tyro.cli(Args)
        use(x=args.tau)  # here
        use(x=args.missing)  # absent
    """
    assert _value_at(src, "here") == 0.005
    assert _value_at(src, "absent") is settings.UNKNOWN
