"""Checks on the skill's Markdown: SKILL.md, refs/ (except the generated rules.md), rl/, pinn/.

What is checked, and why:
- frontmatter of every SKILL.md follows the Agent Skills specification, so the
  skill loads in any client;
- the main SKILL.md body stays under 500 lines (progressive disclosure);
- every relative link and heading anchor resolves (GitHub-style slugs);
- every CLI subcommand and option the text shows exists in the real parser,
  every MCP tool it names exists (in the running server when it is built, in
  the team's fixed list before);
- every rule id the text names exists in the rule catalog;
- every ```python block compiles and its imports resolve.
"""

from __future__ import annotations

import argparse
import asyncio
import importlib.util
import re
import unicodedata
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
GENERATED = {ROOT / "refs" / "rules.md"}  # written by `python -m mlsleuth.docgen`, checked by its own tests


def skill_files() -> list[Path]:
    files = [ROOT / "SKILL.md"]
    for folder in ("refs", "rl", "pinn"):
        files += sorted((ROOT / folder).glob("*.md"))
    return [f for f in files if f not in GENERATED]


def skill_entry_points() -> list[Path]:
    return [p for p in (ROOT / "SKILL.md", ROOT / "rl" / "SKILL.md", ROOT / "pinn" / "SKILL.md")]


FILES = skill_files()
IDS = [str(f.relative_to(ROOT)) for f in FILES]

# The names the team agreed on; the real CLI and MCP server are checked as they land.
FIXED_CLI = {"check", "scan", "rules", "trace", "diagnose", "nan", "sweep", "serve", "install-skill"}
FIXED_MCP = {"triage", "scan", "list_rules", "explain_rule", "trace_training", "run_diagnostics", "locate_nan", "compare_sweep"}
FIXED_PROMPTS = {"debug_training"}


# --------------------------------------------------------------------------- Markdown parsing

FENCE = re.compile(r"^(```|~~~)")


def split_markdown(text: str) -> tuple[list[tuple[int, str]], list[tuple[str, str, int]]]:
    """Prose lines (with 1-based numbers) and fenced blocks (language, body, first line)."""
    prose: list[tuple[int, str]] = []
    blocks: list[tuple[str, str, int]] = []
    in_block, lang, body, start = False, "", [], 0
    for n, line in enumerate(text.splitlines(), 1):
        if FENCE.match(line.strip()):
            if in_block:
                blocks.append((lang, "\n".join(body) + "\n", start))
                in_block = False
            else:
                in_block, lang, body, start = True, line.strip()[3:].strip().lower(), [], n + 1
            continue
        if in_block:
            body.append(line)
        else:
            prose.append((n, line))
    if in_block:
        raise AssertionError(f"unclosed code fence opened at line {start - 1}")
    return prose, blocks


def strip_inline_code(line: str) -> str:
    return re.sub(r"`[^`]*`", "", line)


def inline_code(line: str) -> list[str]:
    return re.findall(r"`([^`]+)`", line)


def github_slug(heading: str) -> str:
    """The anchor GitHub gives a heading: rendered text, lower-cased, punctuation dropped."""
    text = re.sub(r"\[([^\]]*)\]\([^)]*\)", r"\1", heading)  # links keep their text
    text = text.replace("`", "").replace("*", "")
    text = unicodedata.normalize("NFC", text).strip().lower()
    text = "".join(ch for ch in text if ch.isalnum() or ch in " -_")
    return text.replace(" ", "-")


def anchors(path: Path) -> set[str]:
    prose, _ = split_markdown(path.read_text(encoding="utf-8"))
    seen: dict[str, int] = {}
    out: set[str] = set()
    for _, line in prose:
        m = re.match(r"^(#{1,6})\s+(.*?)\s*#*\s*$", line)
        if not m:
            continue
        slug = github_slug(m.group(2))
        if slug in seen:
            seen[slug] += 1
            out.add(f"{slug}-{seen[slug]}")
        else:
            seen[slug] = 0
            out.add(slug)
    return out


LINK = re.compile(r"(?<!!)\[[^\]]*\]\(([^)\s]+)(?:\s+\"[^\"]*\")?\)")


def links(path: Path) -> list[tuple[int, str]]:
    prose, _ = split_markdown(path.read_text(encoding="utf-8"))
    return [(n, target) for n, line in prose for target in LINK.findall(strip_inline_code(line))]


def frontmatter(path: Path) -> tuple[dict[str, str], str]:
    text = path.read_text(encoding="utf-8")
    if not text.startswith("---\n"):
        raise AssertionError(f"{path.name}: no frontmatter (the file must start with '---')")
    head, sep, body = text[4:].partition("\n---\n")
    if not sep:
        raise AssertionError(f"{path.name}: frontmatter is not closed with '---'")
    fields: dict[str, str] = {}
    for line in head.splitlines():
        if not line.strip():
            continue
        key, colon, value = line.partition(":")
        if not colon or not re.fullmatch(r"[a-z][a-z0-9_-]*", key):
            raise AssertionError(f"{path.name}: frontmatter line is not 'key: value': {line!r}")
        fields[key] = value.strip()
    return fields, body


# --------------------------------------------------------------------------- frontmatter and size

@pytest.mark.parametrize("path", skill_entry_points(), ids=lambda p: str(p.relative_to(ROOT)))
def test_frontmatter_follows_agent_skills_spec(path):
    fields, _ = frontmatter(path)
    allowed = {"name", "description", "license", "compatibility", "metadata", "allowed-tools"}
    assert set(fields) <= allowed, f"unknown frontmatter keys: {set(fields) - allowed}"
    name = fields.get("name", "")
    assert re.fullmatch(r"[a-z0-9]+(-[a-z0-9]+)*", name) and len(name) <= 64, f"bad name {name!r}"
    expected = "mlsleuth" if path.parent == ROOT else f"mlsleuth-{path.parent.name}"  # companions install beside it
    assert name == expected, f"name must equal its directory's install name {expected!r}"
    description = fields.get("description", "")
    assert 1 <= len(description) <= 1024, f"description has {len(description)} characters"
    assert "<" not in description and ">" not in description, "angle brackets are not allowed"
    assert not description.startswith(("'", '"', "|", ">")), "keep the description a plain one-line scalar"


def test_main_description_names_the_symptoms_users_report():
    description = frontmatter(ROOT / "SKILL.md")[0]["description"].lower()
    for symptom in ("nan", "not decreasing", "ln c", "diverg", "validation", "seeds", "sweep", "training loop", "audit",
                    "accuracy", "chance level"):
        assert symptom in description, f"the description should mention {symptom!r}"


@pytest.mark.parametrize("sub, symptoms", [
    ("rl", ("reinforcement", "ppo", "dqn", "returns", "entropy", "seed")),
    ("pinn", ("physics-informed", "pinn", "residual", "boundary", "create_graph", "collocation", "orders of magnitude", "units")),
])
def test_companion_descriptions_name_the_symptoms_users_report(sub, symptoms):
    """The companions install as skills of their own (mlsleuth-rl, mlsleuth-pinn): their descriptions must trigger alone."""
    description = frontmatter(ROOT / sub / "SKILL.md")[0]["description"].lower()
    for symptom in symptoms:
        assert symptom in description, f"{sub}/SKILL.md's description should mention {symptom!r}"


def test_main_skill_body_is_under_500_lines():
    _, body = frontmatter(ROOT / "SKILL.md")
    assert len(body.splitlines()) < 500


def test_first_screen_is_the_decision():
    """Issue 18: the first 60 lines say which one call to make for a symptom and how to read its answer."""
    first = "\n".join((ROOT / "SKILL.md").read_text(encoding="utf-8").splitlines()[:60])
    for heading in ("## Start here", "## Reading the answer"):
        assert heading in first, f"{heading!r} should be on SKILL.md's first screen (60 lines)"
    assert "mlsleuth check" in first and "MCP `triage`" in first, "the one call, in CLI and MCP wording"
    assert "Read it first" in first, "say when reading the code is the cheaper move"
    for chapter in ("refs/symptoms.md", "refs/method.md", "refs/nan_inf.md"):
        assert chapter in first, f"the first screen should point to {chapter}"
    reading = first.split("## Reading the answer", 1)[1]
    assert reading.count("\n1. ") == 1 and "\n5. " in reading, "how to read the answer, as numbered steps"


def test_every_chapter_is_linked_from_its_entry_point():
    linked = {
        (ROOT / target.split("#")[0]).resolve()
        for _, target in links(ROOT / "SKILL.md")
        if not target.startswith(("http:", "https:", "#"))
    }
    for chapter in sorted((ROOT / "refs").glob("*.md")):
        assert chapter.resolve() in linked, f"SKILL.md does not link {chapter.relative_to(ROOT)}"
    for sub in ("rl", "pinn"):
        assert (ROOT / sub / "SKILL.md").resolve() in linked
        sub_links = {(ROOT / sub / t.split("#")[0]).resolve() for _, t in links(ROOT / sub / "SKILL.md")
                     if not t.startswith(("http:", "https:", "#"))}
        for chapter in sorted((ROOT / sub).glob("*.md")):
            if chapter.name != "SKILL.md":
                assert chapter.resolve() in sub_links, f"{sub}/SKILL.md does not link {chapter.name}"


def test_long_chapters_have_a_table_of_contents():
    for path in FILES:
        text = path.read_text(encoding="utf-8")
        if len(text.splitlines()) > 100:
            assert re.search(r"^## Contents$", text, re.MULTILINE), f"{path.relative_to(ROOT)} is long and has no contents"


# --------------------------------------------------------------------------- links and anchors

def broken_links(path: Path) -> list[str]:
    problems = []
    for n, target in links(path):
        if re.match(r"^[a-z][a-z0-9+.-]*:", target):  # http:, https:, mailto:
            continue
        file_part, _, anchor = target.partition("#")
        dest = (path.parent / file_part).resolve() if file_part else path
        if not dest.exists():
            problems.append(f"line {n}: {target} -> missing {dest}")
            continue
        if anchor:
            if dest.suffix != ".md":
                problems.append(f"line {n}: anchor on a non-Markdown target {target}")
            elif anchor not in anchors(dest):
                problems.append(f"line {n}: no heading with anchor #{anchor} in {dest.name}")
    return problems


@pytest.mark.parametrize("path", FILES, ids=IDS)
def test_relative_links_and_anchors_resolve(path):
    problems = broken_links(path)
    assert not problems, "\n".join(problems)


def test_links_still_resolve_in_an_installed_copy(tmp_path):
    """`mlsleuth install-skill` copies a payload, not the repository: every link
    the skill makes (to chapters, measurements, the quote registry) must land
    inside that copy."""
    from mlsleuth.serving.install import install_skill

    dest = tmp_path / "skills" / "mlsleuth"
    install_skill(dest, source=ROOT)
    installed = [dest / p.relative_to(ROOT) for p in FILES]
    problems = [f"{p.relative_to(dest)}: {msg}" for p in installed for msg in broken_links(p)]
    assert not problems, "\n".join(problems)
    assert (dest / "refs" / "rules.md").is_file()
    assert (dest / "docs" / "evidence" / "quotes.json").is_file()


def test_links_resolve_in_every_installed_skill(tmp_path):
    """The companions install as skills of their own beside the main one; their links to it still land."""
    from mlsleuth.serving.install import install_skills

    skills = tmp_path / "skills"
    install_skills(skills, source=ROOT)
    for sub in ("rl", "pinn"):
        folder = skills / f"mlsleuth-{sub}"
        assert frontmatter(folder / "SKILL.md")[0]["name"] == folder.name
        problems = [f"{p.relative_to(skills)}: {msg}" for p in sorted(folder.glob("*.md")) for msg in broken_links(p)]
        assert not problems, "\n".join(problems)


def test_link_checker_flags_a_link_leaving_the_installed_copy(tmp_path):
    (tmp_path / "a.md").write_text("# A\n\nSee [the tests](../tests/x.py).\n", encoding="utf-8")
    assert broken_links(tmp_path / "a.md")


def test_generated_catalog_is_present():
    target = ROOT / "refs" / "rules.md"
    assert target.exists(), "refs/rules.md is missing: run `python -m mlsleuth.docgen` to generate it"


def test_slug_rules_match_github():
    assert github_slug("1. Calibrate first") == "1-calibrate-first"
    assert github_slug("trace or diagnose?") == "trace-or-diagnose"
    assert github_slug("Test 1: NaN-poisoning") == "test-1-nan-poisoning"
    assert github_slug("The `nan_to_num` trap") == "the-nan_to_num-trap"


# --------------------------------------------------------------------------- code blocks

def python_blocks():
    for path in FILES:
        _, blocks = split_markdown(path.read_text(encoding="utf-8"))
        for lang, body, start in blocks:
            if lang in ("python", "py"):
                yield pytest.param(body, id=f"{path.relative_to(ROOT)}:{start}")


@pytest.mark.parametrize("source", list(python_blocks()))
def test_python_blocks_compile_and_import(source):
    code = compile(source, "<handbook>", "exec")
    namespace: dict = {}
    exec(code, namespace)  # noqa: S102 - the blocks define functions and classes only; this checks their imports


def test_code_blocks_declare_a_language():
    for path in FILES:
        _, blocks = split_markdown(path.read_text(encoding="utf-8"))
        for lang, _, start in blocks:
            assert lang, f"{path.relative_to(ROOT)}:{start}: fenced block without a language"


# --------------------------------------------------------------------------- CLI and MCP names

def code_fragments(path: Path) -> list[str]:
    """Inline code spans plus each line of bash/shell blocks (continuations joined)."""
    prose, blocks = split_markdown(path.read_text(encoding="utf-8"))
    out = [span for _, line in prose for span in inline_code(line)]
    for lang, body, _ in blocks:
        if lang in ("bash", "sh", "shell", "console"):
            out += body.replace("\\\n", " ").splitlines()
    return out


def rel(path: Path) -> str:
    return str(path.relative_to(ROOT)) if ROOT in path.parents else path.name


def cli_mentions(files=FILES) -> list[tuple[str, str, list[str]]]:
    """(file, subcommand, options) for every `mlsleuth SUBCOMMAND ...` shown in code."""
    found = []
    for path in files:
        for fragment in code_fragments(path):
            fragment = re.sub(r"\"[^\"]*\"|'[^']*'", "ARG", fragment)  # quoted arguments are not options
            for m in re.finditer(r"(?:^|\s)mlsleuth ([a-z][a-z-]*)((?:\s+[^\s`]+)*)", fragment):
                own_args = re.split(r"(?<!\S)--(?!\S)", m.group(2))[0]  # after a bare --: the script's args
                options = re.findall(r"(?<!\S)(--[a-z][a-z-]*)", own_args)
                found.append((rel(path), m.group(1), options))
    return found


def real_cli() -> dict[str, set[str]]:
    from mlsleuth.cli import build_parser

    parser = build_parser()
    sub = next(a for a in parser._actions if isinstance(a, argparse._SubParsersAction))
    return {
        name: {opt for action in p._actions for opt in action.option_strings}
        for name, p in sub.choices.items()
    }


def test_cli_subcommands_named_are_the_agreed_ones():
    mentions = cli_mentions()
    assert mentions, "the skill shows no mlsleuth command at all"
    unknown = sorted({(f, c) for f, c, _ in mentions if c not in FIXED_CLI})
    assert not unknown, f"not an mlsleuth subcommand: {unknown}"


def test_cli_subcommands_and_options_exist_in_the_parser():
    cli = real_cli()
    pending = sorted({c for _, c, _ in cli_mentions() if c not in cli})
    problems = [
        f"{f}: `mlsleuth {c}` has no option {opt}"
        for f, c, opts in cli_mentions() if c in cli
        for opt in opts if opt not in cli[c]
    ]
    assert not problems, "\n".join(problems)
    assert not pending, f"the skill names subcommands the CLI does not have: {pending}"


MCP_MENTION = re.compile(r"\bMCP((?:\s*(?:,|or|and)?\s*`[^`]+`)+)")


def mcp_mentions(files=FILES) -> list[tuple[str, str]]:
    found = []
    for path in files:
        prose, _ = split_markdown(path.read_text(encoding="utf-8"))
        header: list[str] | None = None
        for _, line in prose:
            for m in MCP_MENTION.finditer(line):
                found += [(rel(path), name) for name in inline_code(m.group(1))]
            if line.startswith("|"):
                cells = [c.strip() for c in line.strip().strip("|").split("|")]
                if header is None:
                    header = cells
                elif not all(re.fullmatch(r":?-+:?", c) for c in cells):
                    for title, cell in zip(header, cells):
                        if title.startswith("MCP"):
                            found += [(rel(path), name) for name in inline_code(cell)]
            else:
                header = None
    return found


def test_mcp_tool_names_are_the_agreed_ones():
    mentions = mcp_mentions()
    assert {name for _, name in mentions} >= {"scan", "trace_training", "locate_nan", "compare_sweep"}
    unknown = sorted({m for m in mentions if m[1] not in FIXED_MCP})
    assert not unknown, f"not an mlsleuth MCP tool: {unknown}"


def real_mcp_tools(tmp_path) -> set[str] | None:
    if importlib.util.find_spec("mlsleuth.mcp_server") is None:
        return None
    module = importlib.import_module("mlsleuth.mcp_server")
    from mcp.server.mcpserver import MCPServer

    build = getattr(module, "build_server", None)
    server = build(tmp_path) if build else next(
        (v for v in vars(module).values() if isinstance(v, MCPServer)), None)
    if server is None:
        pytest.fail("mlsleuth.mcp_server exists but exposes neither build_server() nor an MCPServer")
    return {tool.name for tool in asyncio.run(server.list_tools())}


def test_mcp_tools_named_exist_in_the_server(tmp_path):
    tools = real_mcp_tools(tmp_path)
    assert tools is not None, "mlsleuth.mcp_server is missing"
    missing = sorted({name for _, name in mcp_mentions() if name not in tools})
    assert not missing, f"the skill names MCP tools the server does not have: {missing}"


# --------------------------------------------------------------------------- rule ids

def rule_id_mentions(files=FILES) -> list[tuple[str, str]]:
    """Inline code that looks like a rule id (kebab-case) and is not a category or subcommand."""
    from mlsleuth.report import CATEGORIES

    not_rules = set(CATEGORIES) | FIXED_CLI
    found = []
    for path in files:
        prose, blocks = split_markdown(path.read_text(encoding="utf-8"))
        spans = [s for _, line in prose for s in inline_code(line)]
        for lang, body, _ in blocks:
            if lang == "json":
                spans += re.findall(r'"rule":\s*"([^"]+)"', body)
            if lang == "text":  # rendered reports: `path: severity [rule-id] message`
                spans += re.findall(r"\b(?:error|warning|info) \[([a-z0-9-]+)\]", body)
        for span in spans:
            if re.fullmatch(r"[a-z0-9]+(?:-[a-z0-9]+)+", span) and span not in not_rules:
                found.append((rel(path), span))
            for rule in re.findall(r"mlsleuth rules ([a-z0-9]+(?:-[a-z0-9]+)+)", span):
                found.append((rel(path), rule))
    return found


def test_rule_ids_named_exist_in_the_catalog():
    from mlsleuth.catalog import load_all

    catalog = load_all()
    mentions = rule_id_mentions()
    assert mentions, "the skill names no rule id at all; name at least the stable ones"
    missing = sorted({m for m in mentions if m[1] not in catalog})
    assert not missing, f"rule ids not in the catalog (`mlsleuth rules`): {missing}"


def test_categories_named_are_real_categories():
    from mlsleuth.report import CATEGORIES

    text = (ROOT / "refs" / "method.md").read_text(encoding="utf-8")
    section = text.split("## 4. The order of suspicion", 1)[1].split("\n## ", 1)[0]
    named = re.findall(r"\*\*[^*]+\*\* \(`([a-z-]+)`\)", section)
    assert named, "the order of suspicion should name the finding categories"
    assert set(named) <= set(CATEGORIES)
    order = [c for c in CATEGORIES if c in named]
    assert named == order, "the order of suspicion must follow the report's category order"


# --------------------------------------------------------------------------- the checkers themselves

SAMPLE = """# Sample

## Real heading

See [here](#real-heading), [gone](#no-such-heading) and [file](missing.md).
Run `mlsleuth scan src/ --format json --bogus-flag` or MCP `locate_nan`, `trace_training`.
Also MCP `not_a_tool`. The rule `made-up-rule-id` and `training-loop` (a category).

| Question | MCP tool |
|---|---|
| where? | `compare_sweep` |

```bash
mlsleuth sweep r.csv --param lr --command "python t.py --lr {value}"
mlsleuth trace train.py --steps 5 -- --epochs 3
```

```text
train.py: warning [fake-runtime-check] something
```
"""


@pytest.fixture
def sample(tmp_path):
    path = tmp_path / "sample.md"
    path.write_text(SAMPLE, encoding="utf-8")
    return path


def test_checkers_catch_broken_links_and_anchors(sample):
    assert anchors(sample) == {"sample", "real-heading"}
    targets = [t for _, t in links(sample)]
    assert targets == ["#real-heading", "#no-such-heading", "missing.md"]


def test_checkers_find_cli_options_but_not_quoted_arguments(sample):
    found = {(cmd, tuple(opts)) for _, cmd, opts in cli_mentions([sample])}
    assert ("scan", ("--format", "--bogus-flag")) in found
    assert ("sweep", ("--param", "--command")) in found  # --lr sits inside the quoted command
    assert ("trace", ("--steps",)) in found  # --epochs belongs to the script, after a bare --
    assert "--bogus-flag" not in real_cli()["scan"]


def test_checkers_find_mcp_names_in_prose_and_tables(sample):
    assert {name for _, name in mcp_mentions([sample])} == {
        "locate_nan", "trace_training", "not_a_tool", "compare_sweep"}


def test_checkers_find_rule_ids_but_skip_categories(sample):
    assert [rule for _, rule in rule_id_mentions([sample])] == ["made-up-rule-id", "fake-runtime-check"]


# --------------------------------------------------------------------------- MCP resources and prompts

def resource_uris(files=FILES) -> list[tuple[str, str]]:
    return [(rel(p), uri) for p in files for _, line in split_markdown(p.read_text(encoding="utf-8"))[0]
            for span in inline_code(line) for uri in re.findall(r"mlsleuth://[^\s`]+", span)]


def test_resource_uris_point_at_real_files_and_rules():
    from mlsleuth.catalog import load_all

    rules = load_all()
    problems = []
    uris = resource_uris()
    assert any(uri == "mlsleuth://skill" for _, uri in uris)
    for where, uri in uris:
        path = uri[len("mlsleuth://"):]
        if path == "skill":
            continue
        section, _, name = path.partition("/")
        if name in ("{name}", "{rule_id}"):
            ok = (section, name) in {("refs", "{name}"), ("rl", "{name}"), ("pinn", "{name}"), ("rules", "{rule_id}")}
        elif section == "rules":
            ok = name in rules
        else:
            ok = section in ("refs", "rl", "pinn") and (ROOT / section / f"{name}.md").is_file()
        if not ok:
            problems.append(f"{where}: {uri} names no resource")
    assert not problems, "\n".join(problems)


def prompt_mentions(files=FILES) -> set[str]:
    return {name for p in files for _, line in split_markdown(p.read_text(encoding="utf-8"))[0]
            for name in re.findall(r"\bprompt `([a-z_]+)`", line)}


def test_prompts_named_exist(tmp_path):
    named = prompt_mentions()
    assert named, "SKILL.md should point MCP-only clients at the debug prompt"
    assert named <= FIXED_PROMPTS
    server = importlib.import_module("mlsleuth.mcp_server").build_server(tmp_path)
    prompts = {p.name for p in asyncio.run(server.list_prompts())}
    assert named <= prompts, f"prompts missing from the server: {named - prompts}"


def test_order_of_suspicion_is_an_ordering_not_fake_frequencies():
    text = (ROOT / "refs" / "method.md").read_text(encoding="utf-8")
    section = text.split("## 4. The order of suspicion", 1)[1].split("\n## ", 1)[0]
    assert not re.search(r"\d\s*%", section), "no invented percentages in the order of suspicion"
    assert "not a measured frequency" in section
