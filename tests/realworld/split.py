"""Place corpus cases in ``dev/`` or ``test/`` by a seeded hash of their id, and write ``split.json``.

Usage::

    python tests/realworld/split.py                 # check placement, rewrite split.json
    python tests/realworld/split.py --add DIR ...   # move new case folders into their split
    python tests/realworld/split.py --move-to-dev ID --why "inspected while fixing rule X"

A case goes to ``dev/`` when ``sha256(SEED + id)``'s first eight hex digits,
read as a fraction of 2**32, fall below ``DEV_SHARE``. The rule reads the id
alone, so adding a case never moves another. A ``test/`` case that someone
inspected is moved to ``dev/`` for good with ``--move-to-dev``; the move is
recorded in ``split.json`` under ``moved_to_dev`` with its reason.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import shutil
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
SEED = "mlsleuth-realworld-v1:"
DEV_SHARE = 0.6
SPLITS = ("dev", "test")


def hashed_split(case_id: str) -> str:
    digest = hashlib.sha256((SEED + case_id).encode("utf-8")).hexdigest()
    return "dev" if int(digest[:8], 16) / 2**32 < DEV_SHARE else "test"


def load_manifest(root: Path = HERE) -> dict:
    path = root / "split.json"
    if not path.is_file():
        return {"seed": SEED, "dev_share": DEV_SHARE, "moved_to_dev": {}, "dev": [], "test": []}
    return json.loads(path.read_text(encoding="utf-8"))


def expected_split(case_id: str, manifest: dict) -> str:
    return "dev" if case_id in manifest.get("moved_to_dev", {}) else hashed_split(case_id)


def case_dirs(root: Path = HERE) -> dict[str, list[Path]]:
    """Every case folder (one holding a case.json) in each split."""
    return {s: sorted(p.parent for p in (root / s).glob("*/case.json")) for s in SPLITS}


def misplaced(root: Path = HERE) -> list[str]:
    manifest = load_manifest(root)
    wrong = []
    for split, dirs in case_dirs(root).items():
        for d in dirs:
            if expected_split(d.name, manifest) != split:
                wrong.append(f"{split}/{d.name} belongs in {expected_split(d.name, manifest)}/")
    return wrong


def write_manifest(root: Path = HERE) -> dict:
    manifest = load_manifest(root)
    dirs = case_dirs(root)
    manifest.update(
        seed=SEED,
        dev_share=DEV_SHARE,
        dev=[d.name for d in dirs["dev"]],
        test=[d.name for d in dirs["test"]],
    )
    (root / "split.json").write_text(json.dumps(manifest, indent=1, sort_keys=True) + "\n", encoding="utf-8")
    return manifest


def add_cases(sources: list[Path], root: Path = HERE) -> list[str]:
    manifest = load_manifest(root)
    placed = []
    for src in sources:
        meta = json.loads((src / "case.json").read_text(encoding="utf-8"))
        case_id = meta.get("id")
        if case_id != src.name:
            raise SystemExit(f"{src}: case.json id {case_id!r} differs from the folder name")
        split = expected_split(case_id, manifest)
        dest = root / split / case_id
        if any((root / s / case_id).exists() for s in SPLITS):
            raise SystemExit(f"{case_id}: a case with this id is already in the corpus")
        shutil.copytree(src, dest, ignore=shutil.ignore_patterns("__pycache__", "*.pyc", ".mlsleuth"))
        placed.append(f"{split}/{case_id}")
    return placed


def move_to_dev(case_id: str, why: str, root: Path = HERE) -> None:
    src = root / "test" / case_id
    if not src.is_dir():
        raise SystemExit(f"{case_id}: not in test/")
    manifest = load_manifest(root)
    manifest.setdefault("moved_to_dev", {})[case_id] = why
    (root / "split.json").write_text(json.dumps(manifest, indent=1, sort_keys=True) + "\n", encoding="utf-8")
    shutil.move(str(src), str(root / "dev" / case_id))


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--add", nargs="+", type=Path, metavar="DIR", help="new case folders to copy into their split")
    parser.add_argument("--move-to-dev", metavar="ID", help="move an inspected test/ case to dev/ for good")
    parser.add_argument("--why", help="with --move-to-dev: why the case was inspected")
    args = parser.parse_args(argv)
    if args.move_to_dev:
        if not args.why:
            parser.error("--move-to-dev needs --why")
        move_to_dev(args.move_to_dev, args.why)
    if args.add:
        for line in add_cases(args.add):
            print("added", line)
    wrong = misplaced()
    if wrong:
        print("\n".join(wrong), file=sys.stderr)
        return 1
    manifest = write_manifest()
    print(f"dev: {len(manifest['dev'])} cases, test: {len(manifest['test'])} cases")
    return 0


if __name__ == "__main__":
    sys.exit(main())
