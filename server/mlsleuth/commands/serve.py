"""``mlsleuth serve``: run the MCP server (stdio by default, or streamable HTTP)."""

from __future__ import annotations

import argparse
import ipaddress
import os
import sys

DEFAULT_TOKEN_ENV = "MLSLEUTH_TOKEN"


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser(
        "serve",
        help="run the MCP server for coding agents",
        description=(
            "Serve mlsleuth's tools, handbook resources and prompts over the Model Context Protocol. "
            "Standard input/output by default (what IDEs launch); --http for streamable HTTP on "
            "127.0.0.1 with a bearer token."
        ),
    )
    p.add_argument("--root", default=".", metavar="DIR", help="the project folder: tools read only files under it and run user code with it as the working directory (default: the current directory)")
    p.add_argument("--http", action="store_true", help="serve streamable HTTP instead of stdio")
    p.add_argument("--host", default="127.0.0.1", help="HTTP bind address (default 127.0.0.1; only loopback is accepted)")
    p.add_argument("--port", type=int, default=8765, help="HTTP port (default 8765)")
    p.add_argument("--token-env", default=DEFAULT_TOKEN_ENV, metavar="VAR", help=f"environment variable holding the HTTP bearer token (default {DEFAULT_TOKEN_ENV})")
    p.add_argument("--scan-timeout", type=float, default=300.0, metavar="SECONDS", help="stop a scan or sweep comparison after this long (default 300)")
    p.add_argument("--run-timeout", type=float, default=600.0, metavar="SECONDS", help="longest a tool may run user code (default 600)")
    p.add_argument("--child-memory-limit", type=int, default=None, metavar="MB",
                   help="cap the data memory (RLIMIT_DATA) of every child the server starts: scans, sweep comparisons and "
                        "runs of user code (default: half the physical memory, at least 2048; 0: no cap)")
    p.add_argument("--log-level", choices=("DEBUG", "INFO", "WARNING", "ERROR"), default="WARNING", help="stderr logging level (default WARNING)")
    p.set_defaults(handler=run)


def _check_host(host: str) -> None:
    from mlsleuth.cli import UsageError

    if host == "localhost":
        return
    try:
        loopback = ipaddress.ip_address(host).is_loopback
    except ValueError:
        loopback = False
    if not loopback:
        raise UsageError(
            f"--host {host} is not a loopback address; mlsleuth runs training code on request, so it only "
            f"listens on this machine (127.0.0.1, ::1 or localhost). Use an SSH tunnel to reach it remotely"
        )


def run(args: argparse.Namespace) -> int:
    import logging

    from mlsleuth.cli import UsageError

    # stderr only: in stdio mode standard output carries the protocol.
    logging.basicConfig(stream=sys.stderr, level=args.log_level, format="mlsleuth serve: %(levelname)s %(name)s: %(message)s")
    for name, value in (("--scan-timeout", args.scan_timeout), ("--run-timeout", args.run_timeout)):
        if not value > 0:
            raise UsageError(f"{name} must be a positive number of seconds")
    root = os.path.abspath(os.path.expanduser(args.root))
    if not os.path.isdir(root):
        raise UsageError(f"--root {args.root}: not a directory")
    token = None
    if args.http:
        from mlsleuth.serving.http_auth import TokenError, check_token

        _check_host(args.host)
        if not 0 < args.port < 65536:
            raise UsageError(f"--port {args.port} is out of range (1-65535)")
        try:
            token = check_token(os.environ.get(args.token_env), args.token_env)
        except TokenError as exc:
            raise UsageError(str(exc)) from None

    from mlsleuth.mcp_server import build_server

    settings = {"scan_timeout_s": args.scan_timeout, "run_timeout_s": args.run_timeout}
    if args.child_memory_limit is not None:
        if args.child_memory_limit < 0 or 0 < args.child_memory_limit < 256:
            raise UsageError("--child-memory-limit must be 0 (no cap) or at least 256 MB")
        settings["child_memory_mb"] = args.child_memory_limit or None
    server = build_server(root, **settings)
    _terminate_gracefully()
    if not args.http:
        server.run()  # stdio
        return 0
    return _serve_http(server, args.host, args.port, token, args.log_level)


def _terminate_gracefully() -> None:
    """On SIGTERM or SIGHUP, kill the process groups (and cgroups) of running user code and delete
    their scratch folders, then exit as the signal would.

    Python's default handling exits at once, skipping the cleanup that kills the children of
    running tools; an IDE stopping the server (or a closed terminal) would otherwise leave a
    training run behind. A SIGKILLed server cannot clean up: each child's watchdog does it
    (see mlsleuth/child_launcher.py).
    """
    import atexit
    import signal

    from mlsleuth.serving.running import kill_active_children

    def on_signal(signum, frame):
        kill_active_children()
        signal.signal(signum, signal.SIG_DFL)
        os.kill(os.getpid(), signum)

    for name in ("SIGTERM", "SIGHUP"):
        if hasattr(signal, name):
            signal.signal(getattr(signal, name), on_signal)
    atexit.register(kill_active_children)  # any other way out of the server


def _serve_http(server, host: str, port: int, token: str, log_level: str) -> int:
    import uvicorn

    from mlsleuth.serving.http_auth import BearerTokenMiddleware

    app = BearerTokenMiddleware(server.streamable_http_app(host=host), token)
    print(f"mlsleuth serve: streamable HTTP on http://{host}:{port}/mcp (bearer token required)", file=sys.stderr)
    config = uvicorn.Config(app, host=host, port=port, log_level=log_level.lower(), lifespan="on")
    uvicorn.Server(config).run()
    return 0
