"""``mlsleuth install-skill``: put the debugging skill where Claude Code finds it."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser(
        "install-skill",
        help="install the mlsleuth skills for Claude Code",
        description=(
            "Copy the skills into a skills folder, one folder each: mlsleuth/ (SKILL.md with refs/, rl/, pinn/), and the "
            "companions mlsleuth-rl/ (reinforcement learning) and mlsleuth-pinn/ (physics-informed networks) as skills of "
            "their own. The skills folder is ~/.claude/skills/ (--user), .claude/skills/ in the current project (--project), "
            "or DIR (--dest)."
        ),
    )
    where = p.add_mutually_exclusive_group(required=True)
    where.add_argument("--user", action="store_true", help="install for every project of this user (~/.claude/skills/)")
    where.add_argument("--project", action="store_true", help="install into this project (.claude/skills/)")
    where.add_argument("--dest", metavar="DIR", help="install into the skills folder DIR (DIR/mlsleuth/SKILL.md, DIR/mlsleuth-rl/, ...)")
    p.add_argument("--force", action="store_true", help="replace an existing install that differs")
    p.set_defaults(handler=run)


def run(args: argparse.Namespace) -> int:
    from mlsleuth.cli import UsageError
    from mlsleuth.serving.install import (
        InstallError,
        install_skills,
        project_skills_dir,
        user_skills_dir,
    )

    skills_dir = user_skills_dir() if args.user else project_skills_dir() if args.project else Path(args.dest)
    try:
        results = install_skills(skills_dir, force=args.force)
    except InstallError as exc:
        raise UsageError(str(exc)) from None
    for result in results:
        name = result.dest.name
        if result.action == "unchanged":
            print(f"skill {name} already installed and up to date in {result.dest} ({len(result.files)} files)")
        else:
            print(f"skill {name} {result.action} in {result.dest}: {len(result.files)} files from {result.source}")
        for warning in result.warnings:
            print(f"mlsleuth install-skill: warning: {warning}", file=sys.stderr)
    if args.project:
        print("Claude Code loads them in this project; commit .claude/skills/ to share them with collaborators.", file=sys.stderr)
    return 0
