"""The ``load-state-dict-strict-false-ignored`` rule (``mlsleuth/scan/rules/architecture/load_state_dict_strict_false_ignored.py``)."""

from __future__ import annotations

from scan.helpers import check, findings

STRICT = "load-state-dict-strict-false-ignored"


def test_strict_false_result_ignored():
    src = """
    import torch

    def restore(model, path):
        state = torch.load(path, map_location="cpu")
        model.load_state_dict(state["model"], strict=False)  # expect: load-state-dict-strict-false-ignored
        return model
    """
    (f,) = findings(src, STRICT)
    check(src, {STRICT})
    assert f.category == "architecture"


def test_strict_false_result_checked_or_strict_load_is_fine():
    src = """
    def restore(model, state):
        missing, unexpected = model.load_state_dict(state, strict=False)
        assert all(k.startswith("head.") for k in missing), missing
        model.load_state_dict(state)
        model.load_state_dict(state, strict=True)
        result = model.load_state_dict(state, strict=False)
        print(result)
    """
    check(src, {STRICT})


def test_a_test_function_loading_a_partial_state_is_left_alone():
    src = """
        import torch

        def test_adapter_weights_load(tmp_path):
            model = make_model()
            state_dict = torch.load(tmp_path / "adapter.pt")
            model.load_state_dict(state_dict, strict=False)
            assert model.adapter.weight.sum() != 0

        def finetune(model, path):
            model.load_state_dict(torch.load(path), strict=False)  # expect: load-state-dict-strict-false-ignored
        """
    check(src, {"load-state-dict-strict-false-ignored"})


def test_base_weights_loaded_into_a_lora_model_are_left_alone():
    src = """
        import torch
        import litgpt.lora

        class FineTuner:
            def setup(self, model, path):
                litgpt.lora.mark_only_lora_as_trainable(model)
                model.load_state_dict(torch.load(path), strict=False)
        """
    check(src, {"load-state-dict-strict-false-ignored"})


def test_filter_and_merge_without_a_count_is_a_loose_load():
    src = """
    import torch

    net = build()
    pretrained_dict = torch.load("best.pth", map_location="cpu")
    model_dict = net.state_dict()
    pretrained_dict = {k: v for k, v in pretrained_dict.items() if k in model_dict}  # expect: load-state-dict-strict-false-ignored
    model_dict.update(pretrained_dict)
    net.load_state_dict(model_dict)

    def warm_start(model, path):
        ckpt = torch.load(path)["state_dict"]
        own = model.state_dict()
        keep = {name: w for name, w in ckpt.items() if name in own.keys() and w.shape == own[name].shape}  # expect: load-state-dict-strict-false-ignored
        model.load_state_dict(keep, strict=False)  # expect: load-state-dict-strict-false-ignored
    """
    check(src, {STRICT})


def test_filter_after_renaming_keys_or_with_a_count_is_fine():
    src = """
    import logging
    import torch
    from torch.nn.modules.utils import consume_prefix_in_state_dict_if_present

    def a(net, path):
        sd = torch.load(path)
        sd = {k.replace("module.", "", 1): v for k, v in sd.items()}
        model_dict = net.state_dict()
        sd = {k: v for k, v in sd.items() if k in model_dict}
        model_dict.update(sd)
        net.load_state_dict(model_dict)

    def b(net, path):
        sd = torch.load(path)
        model_dict = net.state_dict()
        sd = {k: v for k, v in sd.items() if k in model_dict}
        assert len(sd) == len(model_dict), "checkpoint does not match"
        model_dict.update(sd)
        net.load_state_dict(model_dict)

    def c(net, path):
        sd = torch.load(path)
        consume_prefix_in_state_dict_if_present(sd, "module.")
        model_dict = net.state_dict()
        kept = {k: v for k, v in sd.items() if k in model_dict}
        model_dict.update(kept)
        net.load_state_dict(model_dict)

    def d(net, path):
        sd = torch.load(path)
        model_dict = net.state_dict()
        kept = {k: v for k, v in sd.items() if k in model_dict}
        logging.info("loaded %d/%d tensors", len(kept), len(model_dict))
        model_dict.update(kept)
        net.load_state_dict(model_dict)

    def e(net, path, vocab):
        sd = torch.load(path)
        tokens = {k: v for k, v in sd.items() if k in vocab}   # not the model's own dict
        return tokens
    """
    check(src, {STRICT})


def test_a_partial_transfer_that_reports_how_much_was_loaded_is_fine():
    src = """
        import logging
        import torch

        log = logging.getLogger(__name__)

        def warm_start(model, path):
            old = torch.load(path, map_location="cpu")["weights"]
            own = model.state_dict()
            shared = {k: v for k, v in old.items() if k in own and v.shape == own[k].shape}
            model.load_state_dict(shared, strict=False)
            log.info("warm start: %d of %d tensors taken from %s", len(shared), len(own), path)

        def warm_start_quietly(model, path):
            old = torch.load(path, map_location="cpu")["weights"]
            model.load_state_dict(old, strict=False)  # expect: load-state-dict-strict-false-ignored
            print("loaded", path)
        """
    check(src, {STRICT})
