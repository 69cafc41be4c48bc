"""Start-up cost of ``mlsleuth serve`` against a bare MCPServer with one tool.

What is timed: from launching the process to the answer of ``tools/list`` over
stdio, the way an IDE experiences it (spawn, imports, server construction,
initialize handshake, tools/list). Both servers run in the same invocation,
interleaved, several times; medians and their ratio are printed. The goal in
issue #3 is a ratio of at most 1.3.

    python benchmarks/bench_startup.py            # 9 rounds
    python benchmarks/bench_startup.py --rounds 15 --json

The peer is the SDK's own minimal server (``MCPServer`` + one ``@tool``), so
the SDK's import time (about a second on small machines) is in both numbers
and the ratio isolates what mlsleuth adds.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

BARE_SERVER = """\
from mcp.server.mcpserver import MCPServer

server = MCPServer("bare")


@server.tool()
def echo(text: str) -> str:
    \"\"\"Return the text.\"\"\"
    return text


server.run()
"""

REQUESTS = [
    {"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {"protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "bench", "version": "0"}}},
    {"jsonrpc": "2.0", "method": "notifications/initialized"},
    {"jsonrpc": "2.0", "id": 2, "method": "tools/list"},
]


def time_to_tools_list(argv: list[str], cwd: str) -> tuple[float, int]:
    """Seconds from spawn to the tools/list reply, and how many tools it listed."""
    payload = "".join(json.dumps(r) + "\n" for r in REQUESTS).encode()
    start = time.perf_counter()
    proc = subprocess.Popen(argv, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, cwd=cwd)
    try:
        assert proc.stdin is not None and proc.stdout is not None
        proc.stdin.write(payload)
        proc.stdin.flush()
        while True:
            line = proc.stdout.readline()
            if not line:
                raise RuntimeError(f"{argv} exited before answering tools/list")
            msg = json.loads(line)
            if msg.get("id") == 2:
                elapsed = time.perf_counter() - start
                return elapsed, len(msg["result"]["tools"])
    finally:
        proc.kill()
        proc.wait()


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=9)
    parser.add_argument("--json", action="store_true", help="print one JSON object instead of a table")
    args = parser.parse_args()

    with tempfile.TemporaryDirectory() as tmp:
        bare = Path(tmp) / "bare_server.py"
        bare.write_text(BARE_SERVER)
        contenders = {
            "bare MCPServer (1 tool)": [sys.executable, str(bare)],
            "mlsleuth serve": [sys.executable, "-m", "mlsleuth", "serve", "--root", tmp],
        }
        times: dict[str, list[float]] = {name: [] for name in contenders}
        tools: dict[str, int] = {}
        for name, argv in contenders.items():  # warm the OS file cache once, untimed
            time_to_tools_list(argv, tmp)
        for _ in range(args.rounds):
            for name, argv in contenders.items():
                elapsed, n = time_to_tools_list(argv, tmp)
                times[name].append(elapsed)
                tools[name] = n

    medians = {name: statistics.median(v) for name, v in times.items()}
    ratio = medians["mlsleuth serve"] / medians["bare MCPServer (1 tool)"]
    if args.json:
        print(json.dumps({"rounds": args.rounds, "medians_s": medians, "ratio": ratio, "tools": tools, "python": sys.version.split()[0], "cpus": os.cpu_count()}))
    else:
        print(f"launch -> tools/list over stdio, {args.rounds} interleaved rounds, median seconds")
        for name, med in medians.items():
            spread = f"min {min(times[name]):.3f}  max {max(times[name]):.3f}"
            print(f"  {name:<26} {med:.3f} s   ({spread}; {tools[name]} tools)")
        print(f"  ratio mlsleuth / bare       {ratio:.2f}x   (goal <= 1.30x)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
