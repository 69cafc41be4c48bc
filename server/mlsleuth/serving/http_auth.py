"""A bearer-token gate in front of the streamable-HTTP app.

``mlsleuth serve --http`` listens on loopback only by default and still asks
for a token: any local process (or a web page doing DNS rebinding) could
otherwise drive a server that runs training code. The token is a shared
secret the user puts in an environment variable; clients send it as
``Authorization: Bearer <token>``. The SDK's own auth hooks expect an OAuth
authorization server, which is more than a local tool needs.
"""

from __future__ import annotations

import hmac
import json
from collections.abc import Awaitable, Callable, MutableMapping
from typing import Any

Scope = MutableMapping[str, Any]
Message = MutableMapping[str, Any]
Receive = Callable[[], Awaitable[Message]]
Send = Callable[[Message], Awaitable[None]]
ASGIApp = Callable[[Scope, Receive, Send], Awaitable[None]]

MIN_TOKEN_LENGTH = 16
MIN_DISTINCT_CHARACTERS = 8  # a repeated pattern ("s" * 32, "ab" * 20) is not a secret


class TokenError(ValueError):
    """The configured token is unusable; the message says how to fix it."""


def check_token(token: str | None, env_var: str) -> str:
    if not token:
        raise TokenError(
            f"--http needs a bearer token: set the environment variable {env_var} to a secret "
            f"(e.g. `export {env_var}=$(python -c 'import secrets; print(secrets.token_urlsafe(32))')`), "
            f"and give clients the header 'Authorization: Bearer <that secret>'"
        )
    advice = f"(e.g. `export {env_var}=$(python -c 'import secrets; print(secrets.token_urlsafe(32))')`)"
    if any(ch.isspace() for ch in token):
        raise TokenError(f"the token in {env_var} contains whitespace, which an Authorization header cannot carry intact; use random characters {advice}")
    if any(not ch.isprintable() for ch in token):
        raise TokenError(f"the token in {env_var} contains control characters; use random printable characters {advice}")
    if not token.isascii():
        raise TokenError(f"the token in {env_var} has non-ASCII characters, which HTTP headers do not carry reliably; use random ASCII characters {advice}")
    if len(token) < MIN_TOKEN_LENGTH:
        raise TokenError(f"the token in {env_var} is {len(token)} characters long; use at least {MIN_TOKEN_LENGTH} random characters {advice}")
    if len(set(token)) < MIN_DISTINCT_CHARACTERS:
        raise TokenError(
            f"the token in {env_var} has only {len(set(token))} distinct characters, which is guessable; "
            f"use at least {MIN_DISTINCT_CHARACTERS} distinct random characters {advice}"
        )
    return token


class BearerTokenMiddleware:
    """Reject HTTP requests whose ``Authorization`` header does not carry the token."""

    def __init__(self, app: ASGIApp, token: str) -> None:
        self.app = app
        self._expected = token.encode("utf-8")

    def _authorized(self, scope: Scope) -> bool:
        for name, value in scope.get("headers") or ():
            if name.lower() == b"authorization":
                scheme, _, credential = value.partition(b" ")
                if scheme.lower() == b"bearer":
                    return hmac.compare_digest(credential.strip(), self._expected)
        return False

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http" or self._authorized(scope):
            await self.app(scope, receive, send)
            return
        body = json.dumps({"error": "unauthorized", "error_description": "send 'Authorization: Bearer <token>' with the token mlsleuth serve was started with"}).encode()
        await send(
            {
                "type": "http.response.start",
                "status": 401,
                "headers": [
                    (b"content-type", b"application/json"),
                    (b"www-authenticate", b'Bearer realm="mlsleuth"'),
                    (b"content-length", str(len(body)).encode()),
                ],
            }
        )
        await send({"type": "http.response.body", "body": body})
