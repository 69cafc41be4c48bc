"""The ``loss-divided-before-deepspeed-backward`` rule (``mlsleuth/scan/rules/training_loop/loss_divided_before_deepspeed_backward.py``)."""

from __future__ import annotations

from scan.helpers import check, findings

LD = {"loss-divided-before-deepspeed-backward"}


def test_script_engine_with_divided_loss():
    check(
        """
        import deepspeed

        model_engine, optimizer, _, _ = deepspeed.initialize(args=args, model=model, model_parameters=model.parameters())
        for step, batch in enumerate(loader):
            loss = model_engine(batch).mean()
            loss = loss / args.gradient_accumulation_steps
            model_engine.backward(loss)  # expect: loss-divided-before-deepspeed-backward
            model_engine.step()
        """,
        LD,
    )


def test_trainer_attribute_and_augmented_division():
    check(
        """
        import deepspeed

        class Trainer:
            def __init__(self, model, cfg):
                self.engine, self.opt, _, self.sched = deepspeed.initialize(model=model, config=cfg.ds_config)
                self.accum = cfg.grad_accum

            def train_step(self, batch):
                loss = self.engine(batch)
                loss /= self.accum
                self.engine.backward(loss)  # expect: loss-divided-before-deepspeed-backward
                self.engine.step()
        """,
        LD,
    )


def test_message():
    got = findings(
        """
        import deepspeed
        engine, *_ = deepspeed.initialize(model=net, config="ds.json")
        engine.backward(engine(x).mean() / accum_steps)
        """,
        "loss-divided-before-deepspeed-backward",
    )
    assert len(got) == 1 and "`accum_steps`" in got[0].message


def test_undivided_or_scale_wrt_gas_false_are_fine():
    check(
        """
        import deepspeed

        engine, optimizer, _, _ = deepspeed.initialize(model=model, config=cfg)
        for batch in loader:
            loss = engine(batch).mean()
            engine.backward(loss)
            engine.step()
        for batch in loader:
            loss = engine(batch).mean() / args.gradient_accumulation_steps
            engine.backward(loss, scale_wrt_gas=False)
            engine.step()
        for batch in loader:
            loss = engine(batch).sum() / batch["n_tokens"]
            engine.backward(loss)
        """,
        LD,
    )
