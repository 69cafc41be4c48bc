"""``mlsleuth install-skill``: put the debugging skill where Claude Code finds it."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser(
        "install-skill",
        help="install the mlsleuth skill for Claude Code",
        description=(
            "Copy SKILL.md, refs/, rl/ and pinn/ into a skills folder: ~/.claude/skills/mlsleuth/ (--user), "
            ".claude/skills/mlsleuth/ in the current project (--project), or DIR (--dest)."
        ),
    )
    where = p.add_mutually_exclusive_group(required=True)
    where.add_argument("--user", action="store_true", help="install for every project of this user (~/.claude/skills/mlsleuth/)")
    where.add_argument("--project", action="store_true", help="install into this project (.claude/skills/mlsleuth/)")
    where.add_argument("--dest", metavar="DIR", help="install into DIR (the folder that will hold SKILL.md)")
    p.add_argument("--force", action="store_true", help="replace an existing install that differs")
    p.set_defaults(handler=run)


def run(args: argparse.Namespace) -> int:
    from mlsleuth.cli import UsageError
    from mlsleuth.serving.install import (
        InstallError,
        install_skill,
        project_dest,
        user_dest,
    )

    dest = user_dest() if args.user else project_dest() if args.project else Path(args.dest)
    try:
        result = install_skill(dest, force=args.force)
    except InstallError as exc:
        raise UsageError(str(exc)) from None
    if result.action == "unchanged":
        print(f"mlsleuth skill already installed and up to date in {result.dest} ({len(result.files)} files)")
    else:
        print(f"mlsleuth skill {result.action} in {result.dest}: {len(result.files)} files from {result.source}")
        for rel in result.files:
            print(f"  {rel.as_posix()}")
    for warning in result.warnings:
        print(f"mlsleuth install-skill: warning: {warning}", file=sys.stderr)
    if args.project:
        print("Claude Code loads it in this project; commit .claude/skills/ to share it with collaborators.", file=sys.stderr)
    return 0
