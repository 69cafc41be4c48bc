"""``mlsleuth serve --http``: streamable HTTP on loopback behind a bearer token."""

from __future__ import annotations

import os
import socket
import subprocess
import sys
import time
from pathlib import Path

import anyio
import httpx2
import pytest
from mcp import Client
from mcp.client.streamable_http import streamable_http_client

TOKEN = "test-token-" + "q" * 24


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@pytest.fixture()
def http_server(tmp_path: Path):
    root = tmp_path / "proj"
    root.mkdir()
    (root / "train.py").write_text("import math\n\ndef bad(x):\n    return x == float('nan')\n")
    port = _free_port()
    env = {**os.environ, "MY_TOKEN": TOKEN, "XDG_CACHE_HOME": str(tmp_path / "cache"), "MLSLEUTH_EXTRA_TOOLS": ""}
    proc = subprocess.Popen(
        [sys.executable, "-m", "mlsleuth", "serve", "--http", "--port", str(port), "--token-env", "MY_TOKEN", "--root", str(root)],
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
    )
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            pytest.fail(f"server exited: {proc.stderr.read().decode()[-2000:]}")
        try:
            with socket.create_connection(("127.0.0.1", port), timeout=0.2):
                break
        except OSError:
            time.sleep(0.1)
    else:
        proc.kill()
        pytest.fail("HTTP server did not start listening within 60 s")
    yield f"http://127.0.0.1:{port}/mcp"
    proc.terminate()
    try:
        proc.wait(timeout=10)
    except subprocess.TimeoutExpired:
        proc.kill()
        proc.wait()
    assert proc.stdout.read() == b""  # nothing on stdout, even in HTTP mode


def test_http_requires_the_token_and_serves_tools(http_server: str) -> None:
    body = {"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {"protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "t", "version": "0"}}}
    headers = {"accept": "application/json, text/event-stream"}
    no_token = httpx2.post(http_server, json=body, headers=headers)
    assert no_token.status_code == 401
    assert no_token.headers["www-authenticate"].startswith("Bearer")
    wrong = httpx2.post(http_server, json=body, headers={**headers, "authorization": "Bearer nope"})
    assert wrong.status_code == 401

    async def go():
        http = httpx2.AsyncClient(headers={"Authorization": f"Bearer {TOKEN}"}, timeout=30)
        async with http, Client(streamable_http_client(http_server, http_client=http)) as c:
            tools = {t.name for t in (await c.list_tools()).tools}
            scan = await c.call_tool("scan", {"paths": ["train.py"]})
            outside = await c.call_tool("scan", {"paths": ["../x"]})
            return tools, scan, outside

    tools, scan, outside = anyio.run(go)
    assert {"scan", "list_rules", "explain_rule"} <= tools
    assert [f["rule"] for f in scan.structured_content["findings"]] == ["nan-equality-check"]
    assert outside.is_error
