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
