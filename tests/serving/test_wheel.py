"""The wheel carries the skill: build it, install it into a fresh virtual
environment, and serve a skill resource and a scan from there."""

from __future__ import annotations

import os
import subprocess
import sys
import sysconfig
import venv
from pathlib import Path

import anyio
import pytest
from mcp import Client, StdioServerParameters

pytestmark = pytest.mark.slow

REPO = Path(__file__).resolve().parents[2]


def _run(argv: list, **kw) -> subprocess.CompletedProcess:
    proc = subprocess.run([str(a) for a in argv], check=False, capture_output=True, text=True, timeout=300, **kw)
    assert proc.returncode == 0, f"{argv} failed:\n{proc.stdout[-3000:]}\n{proc.stderr[-3000:]}"
    return proc


def outer_site_dirs() -> list[str]:
    """The site-packages folders this interpreter imports from (venv, system, user), in its order."""
    dirs = [p for p in sys.path if Path(p).name in ("site-packages", "dist-packages") and Path(p).is_dir()]
    dirs += [p for p in (sysconfig.get_paths()["purelib"], sysconfig.get_paths()["platlib"]) if p not in dirs and Path(p).is_dir()]
    return dirs


def test_wheel_installs_and_serves_skill_and_scan(tmp_path: Path) -> None:
    dist = tmp_path / "dist"
    _run([sys.executable, "-m", "build", "--wheel", "--outdir", dist, REPO], cwd=tmp_path)
    wheels = list(dist.glob("mlsleuth-*.whl"))
    assert len(wheels) == 1

    # The dependencies come offline from wherever this interpreter finds them (a virtual environment's
    # site-packages, the system's, the user's), listed in a .pth of a fresh environment that does not see the
    # system's site-packages: the same set-up in every environment, so it cannot pass on a CI machine and fail
    # in a user's venv (issue 13). A .pth only adds paths (the .pth files inside them are not read), so the
    # outer editable mlsleuth stays out of the way and mlsleuth itself comes from the wheel.
    # This pip installs into the new environment (pip >= 22.3 has --python), which spares
    # bootstrapping a second pip into it (ensurepip: most of this test's time).
    import pip

    outer_pip = tuple(int(p) for p in pip.__version__.split(".")[:2]) >= (22, 3)
    env_dir = tmp_path / "venv"
    venv.EnvBuilder(system_site_packages=False, with_pip=not outer_pip).create(env_dir)
    py = env_dir / "bin" / "python"
    inner_site = Path(_run([py, "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"]).stdout.strip())
    (inner_site / "outer_environment.pth").write_text("\n".join(outer_site_dirs()) + "\n", encoding="utf-8")
    pip_cmd = [sys.executable, "-m", "pip", "--python", py] if outer_pip else [py, "-m", "pip"]
    _run([*pip_cmd, "install", "--no-deps", "--no-index", "--quiet", wheels[0]], cwd=tmp_path)

    clean_env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "MLSLEUTH_SKILL_DIR", "MLSLEUTH_EXTRA_TOOLS")}
    probe = _run(
        [py, "-c", "import mlsleuth, mlsleuth.serving.skill_files as s; print(mlsleuth.__file__); print(s.skill_root())"],
        cwd=tmp_path,
        env=clean_env,
    )
    module_file, skill_root = probe.stdout.split()
    site = env_dir / "lib"
    assert Path(module_file).is_relative_to(site), f"mlsleuth was imported from {module_file}, not the wheel"
    assert Path(skill_root) == Path(module_file).parent / "skill_files"
    assert (Path(skill_root) / "SKILL.md").read_bytes() == (REPO / "SKILL.md").read_bytes()
    shipped = sorted(p.relative_to(skill_root).as_posix() for p in Path(skill_root).rglob("*.md"))
    # every Markdown file the pyproject force-includes (the skill, and the evidence it cites)
    expected = sorted(["SKILL.md"] + [p.relative_to(REPO).as_posix() for d in ("refs", "rl", "pinn", "docs/evidence") for p in (REPO / d).rglob("*.md")])
    assert shipped == expected

    project = tmp_path / "project"
    project.mkdir()
    (project / "train.py").write_text("import torch.nn.functional as F\n\ndef f(logits, y):\n    return F.cross_entropy(F.softmax(logits, dim=1), y)\n")

    params = StdioServerParameters(
        command=str(env_dir / "bin" / "mlsleuth"),
        args=["serve", "--root", str(project)],
        env={"XDG_CACHE_HOME": str(tmp_path / "cache")},
        cwd=str(tmp_path),
    )

    async def go():
        async with Client(params) as c:
            skill = await c.read_resource("mlsleuth://skill")
            listed = [str(r.uri) for r in (await c.list_resources()).resources]
            chapter_uri = next(u for u in listed if u.startswith("mlsleuth://refs/"))
            chapter = await c.read_resource(chapter_uri)
            scan = await c.call_tool("scan", {"paths": ["train.py"]})
            return skill, chapter_uri, chapter, scan

    skill, chapter_uri, chapter, scan = anyio.run(go)
    assert skill.contents[0].text == (REPO / "SKILL.md").read_text(encoding="utf-8")
    name = chapter_uri.rsplit("/", 1)[1]
    assert chapter.contents[0].text == (REPO / "refs" / f"{name}.md").read_text(encoding="utf-8")
    assert not scan.is_error
    assert "softmax-into-logit-loss" in {f["rule"] for f in scan.structured_content["findings"]}

    skills = tmp_path / "skills"  # --dest names the skills folder; each skill gets its own folder in it
    out = _run([env_dir / "bin" / "mlsleuth", "install-skill", "--dest", skills], cwd=tmp_path, env=clean_env)
    assert "installed" in out.stdout
    dest = skills / "mlsleuth"
    assert (dest / "SKILL.md").read_bytes() == (REPO / "SKILL.md").read_bytes()
    assert (skills / "mlsleuth-rl" / "SKILL.md").is_file() and (skills / "mlsleuth-pinn" / "SKILL.md").is_file()
