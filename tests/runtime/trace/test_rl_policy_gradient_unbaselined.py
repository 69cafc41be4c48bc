"""`rl-policy-gradient-unbaselined` (trace): log-probabilities weighted by same-sign returns with no baseline."""

from __future__ import annotations

from ..recorded import findings_of
from .rl_measurements import rl_findings, surrogate

CHECK = "rl-policy-gradient-unbaselined"


def test_all_positive_returns_without_baseline_are_found():
    found = rl_findings(CHECK, surrogates=[surrogate(30.0, 0.0, step=i) for i in range(10)])
    assert len(found) == 1 and "total episode return" in found[0].message
    found = rl_findings(CHECK, surrogates=[surrogate(20.0, 11.0, step=i) for i in range(10)])  # reward-to-go, undiscounted
    assert len(found) == 1 and "total episode return" not in found[0].message


def test_normalised_advantages_critics_and_few_updates_are_quiet():
    assert not rl_findings(CHECK, surrogates=[surrogate(0.0, 1.0, positive=0.5) for _ in range(10)])
    # an actor-critic early on: advantages still mostly positive, but a critic is trained: the baseline is coming
    assert not rl_findings(CHECK, surrogates=[surrogate(20.0, 5.0) for _ in range(10)], other_trained_terms=10)
    assert not rl_findings(CHECK, surrogates=[surrogate(20.0, 5.0) for _ in range(2)])
    # one update with centred weights is enough to show a baseline is used
    assert not rl_findings(CHECK, surrogates=[surrogate(20.0, 5.0)] * 5 + [surrogate(0.1, 1.0, positive=0.55)])


def test_recorded_reinforce_pair():
    assert findings_of("zoo_rl_reinforce_baseline_bug", CHECK)
    assert not findings_of("zoo_rl_reinforce_baseline_fixed", CHECK)
