"""Start-up refuses HTTP bearer tokens that are blank, unprintable or trivially guessable (issue 16, item 18)."""

from __future__ import annotations

import secrets

import pytest
from mlsleuth.serving.http_auth import TokenError, check_token


@pytest.mark.parametrize(
    "token, why",
    [
        (" " * 16, "whitespace"),
        (" " * 40, "whitespace"),
        ("\t" * 20, "whitespace"),
        ("abcdefgh ijklmnopq", "whitespace"),
        ("abcdefghijklmnop\n", "whitespace"),
        ("abcdefghijklmnop\x00", "control"),
        ("s" * 32, "distinct"),
        ("ab" * 20, "distinct"),
        ("ééééééééaaaaaaaabbbbbbbb", "ASCII"),
    ],
)
def test_weak_or_unusable_tokens_are_refused(token, why):
    with pytest.raises(TokenError, match=why):
        check_token(token, "MLSLEUTH_TOKEN")


def test_a_random_token_is_accepted():
    token = secrets.token_urlsafe(24)
    assert check_token(token, "MLSLEUTH_TOKEN") == token
    assert check_token("Xk3-pQ9_zL2.mN8~wR5+", "V") == "Xk3-pQ9_zL2.mN8~wR5+"
