"""The ``argparse-type-bool`` rule (``mlsleuth/scan/rules/hyperparameter/argparse_type_bool.py``)."""

from __future__ import annotations

import argparse

from scan.helpers import check

RULE = {"argparse-type-bool"}


def test_the_premise_false_parses_as_true():
    parser = argparse.ArgumentParser()
    parser.add_argument("--hard_label", type=bool, default=True)
    assert parser.parse_args(["--hard_label", "False"]).hard_label is True


def test_type_bool_options_are_found():
    src = """
        import argparse

        def get_args():
            parser = argparse.ArgumentParser(description="FixMatch")
            parser.add_argument("--epochs", type=int, default=100)
            parser.add_argument("--hard_label", type=bool, default=True)  # expect: argparse-type-bool
            group = parser.add_argument_group("amp")
            group.add_argument("--use-amp", "--amp", type=bool, default=False)  # expect: argparse-type-bool
            parser.add_argument("--pretrained", type=lambda s: bool(s), default=False)  # expect: argparse-type-bool
            return parser.parse_args()
        """
    check(src, RULE)


def test_a_parser_handed_in_by_a_caller_is_found():
    src = """
        def add_model_args(parser):
            parser.add_argument("--use_bn", type=bool, default=True,  # expect: argparse-type-bool
                                help="batch-norm after each conv")
            return parser
        """
    check(src, RULE)


def test_store_true_word_converters_and_bool_aware_parsers_stay_silent():
    src = """
        import argparse

        def str2bool(v):
            return v.lower() in ("yes", "true", "t", "1")

        parser = argparse.ArgumentParser()
        parser.add_argument("--hard_label", action="store_true")
        parser.add_argument("--no_aug", action="store_false", dest="aug")
        parser.add_argument("--amp", action=argparse.BooleanOptionalAction, default=False)
        parser.add_argument("--pretrained", type=str2bool, default=False)
        parser.add_argument("--ema", type=lambda s: s.lower() == "true", default=False)
        parser.add_argument("--deterministic", type=lambda s: bool(int(s)), default=0)
        parser.add_argument("--name", type=str, default="bool")
        """
    check(src, RULE)
    jsonargparse = """
        from jsonargparse import ArgumentParser

        parser = ArgumentParser()
        parser.add_argument("--compile", type=bool, default=False)
        """
    check(jsonargparse, RULE)


def test_a_rebound_bool_stays_silent():
    src = """
        import argparse
        from distutils.util import strtobool

        def bool(text):
            return strtobool(text) == 1

        parser = argparse.ArgumentParser()
        parser.add_argument("--amp", type=bool, default=False)
        """
    check(src, RULE)
