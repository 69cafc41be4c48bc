"""The ``mlsleuth`` command line.

Each subcommand lives in ``mlsleuth.commands.<name>`` and exposes
``register(subparsers)``; it adds its parser and sets ``handler`` to a
function ``(args) -> int``. Command modules import only argparse-level code at
import time, so ``mlsleuth --help`` stays fast; the work is imported inside the
handler.

Exit status: 0 clean, 1 findings (or per-file errors), 2 usage or internal error,
3 the user's code could not be run (see :data:`EXIT_CODES_HELP`).
"""

from __future__ import annotations

import argparse
import importlib
import sys
import traceback
from collections.abc import Sequence

from mlsleuth import __version__

# One line per subcommand, in the order `--help` lists them.
COMMANDS: list[str] = [
    "mlsleuth.commands.check",
    "mlsleuth.commands.scan",
    "mlsleuth.commands.rules",
    "mlsleuth.commands.sweep",
    "mlsleuth.commands.trace",
    "mlsleuth.commands.diagnose",
    "mlsleuth.commands.nan",
    "mlsleuth.commands.serve",
    "mlsleuth.commands.install_skill",
]

EXIT_CLEAN, EXIT_FINDINGS, EXIT_ERROR, EXIT_COULD_NOT_RUN = 0, 1, 2, 3

EXIT_CODES_HELP = """\
exit status:
  0  nothing found
  1  findings (bugs found), or files scan could not read
  2  usage error (bad arguments or input) or an internal error of mlsleuth
  3  your code could not be run to the end: environment problem (no torch, wrong --python),
     setup-function error, or the code raised, exited, crashed, ran out of memory, timed out
     or trained nothing (trace, diagnose, nan); the report shows what ran before
  --exit-zero turns 1 and 3 into 0."""


class UsageError(Exception):
    """Bad arguments or input the user can fix; printed without a traceback, exit 2."""


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="mlsleuth",
        description="Clues for debugging model training: static scan, runtime diagnostics, NaN localisation, sweep statistics.",
        epilog=EXIT_CODES_HELP,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("--version", action="version", version=f"mlsleuth {__version__}")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    sub.required = True
    for name in COMMANDS:
        importlib.import_module(name).register(sub)
    return parser


def _die_by(signum: int) -> None:
    """End the way the signal would have (callers such as `timeout` read the status)."""
    import os
    import signal

    sys.stderr.flush()
    signal.signal(signum, signal.SIG_DFL)
    os.kill(os.getpid(), signum)


def main(argv: Sequence[str] | None = None) -> int:
    parser = build_parser()
    if not (sys.argv[1:] if argv is None else list(argv)):
        parser.print_help(sys.stderr)  # a bare `mlsleuth`: show what it can do, as a usage error
        return EXIT_ERROR
    try:
        args = parser.parse_args(argv)
    except SystemExit as exc:  # argparse: --help (0) or a usage error (2)
        return int(exc.code or 0)
    try:
        return int(args.handler(args))
    except UsageError as exc:
        print(f"mlsleuth {args.command}: error: {exc}", file=sys.stderr)
        return EXIT_ERROR
    except KeyboardInterrupt:
        print("mlsleuth: interrupted", file=sys.stderr)
        return 130
    except BrokenPipeError:  # e.g. `mlsleuth scan . | head`
        return EXIT_ERROR
    except Exception:  # an internal error: say so plainly, with the traceback for a bug report
        print(f"mlsleuth {args.command}: internal error (please report it):", file=sys.stderr)
        traceback.print_exc(file=sys.stderr)
        return EXIT_ERROR
    except BaseException as exc:
        # SIGTERM/SIGHUP during a run of user code (process_runner.Terminated, looked up lazily so
        # that `mlsleuth --help` does not import the runner): the child's group is already killed.
        runner = sys.modules.get("mlsleuth.process_runner")
        if runner is None or not isinstance(exc, runner.Terminated):
            raise
        print(f"mlsleuth: stopped by {exc.name}; the child process group was killed", file=sys.stderr)
        _die_by(exc.signum)
        return 128 + exc.signum


if __name__ == "__main__":
    sys.exit(main())
