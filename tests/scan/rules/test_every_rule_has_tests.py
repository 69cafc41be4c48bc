"""Every rule has its test module, and every test module here belongs to a rule.

A rule ``some-rule`` of category ``some-category`` lives in
``mlsleuth/scan/rules/some_category/some_rule.py``; its tests live in
``tests/scan/rules/some_category/test_some_rule.py``.
"""

from __future__ import annotations

from pathlib import Path

from mlsleuth.scan.registry import all_rules

HERE = Path(__file__).parent


def _module_name(rule_id: str) -> str:
    return rule_id.replace("-", "_")


def _expected_test_files() -> dict[str, Path]:
    return {
        rid: HERE / cls.category.replace("-", "_") / f"test_{_module_name(rid)}.py" for rid, cls in all_rules().items()
    }


def test_every_rule_has_a_test_module():
    missing = sorted(f"{rid}: {path.relative_to(HERE)}" for rid, path in _expected_test_files().items() if not path.is_file())
    assert not missing, f"rules without their test module: {missing}"


def test_every_rule_test_module_names_an_existing_rule():
    expected = set(_expected_test_files().values())
    strays = sorted(str(p.relative_to(HERE)) for p in HERE.glob("*/test_*.py") if p not in expected)
    assert not strays, f"test modules under tests/scan/rules/ that match no rule (id and category): {strays}"


def test_every_rule_lives_in_its_own_module_under_its_category():
    misplaced = []
    for rid, cls in all_rules().items():
        want = f"mlsleuth.scan.rules.{cls.category.replace('-', '_')}.{_module_name(rid)}"
        if cls.__module__ != want:
            misplaced.append(f"{rid}: {cls.__module__} (expected {want})")
    assert not misplaced, misplaced
