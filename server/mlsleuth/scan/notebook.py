"""Jupyter notebooks as Python source, with a map back to cells.

The code cells are joined into one module so rules see the whole notebook
(a criterion defined in cell 2 and misused in cell 5 is still found). IPython
syntax that is not Python (``%magic``, ``!shell``, ``x = !ls``, ``obj?``, and
cells under a non-Python cell magic such as ``%%bash``) is replaced by a
same-indented ``pass`` or blanked, one line for one line, so line numbers never
shift. A cell that still does not parse is reported with its cell number and
left out, and the rest of the notebook is scanned. :func:`strip_script_magics`
does the same for a notebook exported as a ``.py`` file.

Cell numbers are 1-based positions in the notebook's ``cells`` list (markdown
cells count), the index an editor or an agent uses to address a cell.
"""

from __future__ import annotations

import ast
import json
import re
import warnings
from dataclasses import dataclass, field

# Cell magics whose body is still Python.
PYTHON_CELL_MAGICS = {"time", "timeit", "capture", "prun", "debug", "pypy", "python", "python3", "memit", "tensorboard"}
_LINE_MAGIC = re.compile(r"^(\s*)[%!]")
_ASSIGNED_MAGIC = re.compile(r"^(\s*[\w.\[\], ]+?=\s*)[%!]")
_HELP = re.compile(r"^(\s*)[\w.]+\?{1,2}\s*$")


class NotebookError(ValueError):
    """The file is not a notebook we can read; the message says why."""


@dataclass
class CellSource:
    number: int  # 1-based position in the cells list
    lines: list[str]


@dataclass
class NotebookSource:
    """The joined module source and, for each of its lines, (cell number, line within cell)."""

    source: str
    line_map: list[tuple[int, int]] = field(default_factory=list)
    cell_errors: list[tuple[int, int | None, str]] = field(default_factory=list)  # (cell, line, message)
    problems: list[str] = field(default_factory=list)  # malformed cells, one sentence each
    code_cells: int = 0

    def locate(self, line: int | None) -> tuple[int | None, int | None]:
        if line is None or not 1 <= line <= len(self.line_map):
            return None, line
        return self.line_map[line - 1]


def _cell_text(cell: dict) -> str | None:
    """The cell's source as one string; None when it is neither a string nor a list of strings."""
    src = cell.get("source", cell.get("input", ""))
    if isinstance(src, list) and all(isinstance(s, str) for s in src):
        return "".join(src)
    if isinstance(src, str):
        return src
    return None


def _numbers(cells: list[int]) -> str:
    shown = ", ".join(str(n) for n in cells[:10]) + (f" and {len(cells) - 10} more" if len(cells) > 10 else "")
    return f"cell{'s' if len(cells) > 1 else ''} {shown}"


def code_cells(data: object, problems: list[str] | None = None) -> list[CellSource]:
    """The code cells of a parsed notebook (nbformat 4, or 3 with worksheets).

    Malformed cells are described in ``problems`` (when given): entries that are not cell
    objects and sources that are not text are skipped; a cell with no ``cell_type`` is taken
    as code when its text parses as Python (a notebook writer lost the field) and skipped otherwise.
    """
    if not isinstance(data, dict):
        raise NotebookError("not a Jupyter notebook: the JSON top level is not an object")
    cells = data.get("cells")
    if cells is None and isinstance(data.get("worksheets"), list):  # nbformat 3
        cells = [c for ws in data["worksheets"] if isinstance(ws, dict) and isinstance(ws.get("cells"), list) for c in ws["cells"]]
    if not isinstance(cells, list):
        raise NotebookError("not a Jupyter notebook: no 'cells' list")
    out: list[CellSource] = []
    not_cells: list[int] = []
    not_text: list[int] = []
    untyped: list[int] = []
    for number, cell in enumerate(cells, 1):
        if not isinstance(cell, dict):
            not_cells.append(number)
            continue
        kind = cell.get("cell_type")
        if kind is not None and kind != "code":
            continue
        text = _cell_text(cell)
        if text is None:
            not_text.append(number)
            continue
        if kind is None:
            if not text.strip():
                continue
            untyped.append(number)
            if _parses(text) is not None:
                continue
        out.append(CellSource(number, text.splitlines()))
    if problems is not None:
        if not_cells:
            problems.append(f"{_numbers(not_cells)} of the notebook {'are' if len(not_cells) > 1 else 'is'} not a cell object (null, a number or a string) and were skipped")
        if not_text:
            problems.append(f"the source of {_numbers(not_text)} is not text (a string or a list of strings); skipped")
        if untyped:
            problems.append(
                f"{_numbers(untyped)} {'have' if len(untyped) > 1 else 'has'} no cell_type; the ones whose text parses as Python were scanned as code, the rest skipped"
            )
        if problems:
            problems.append("re-save the notebook in Jupyter to repair it")
    return out


def _cell_magic(line: str) -> str | None:
    """The name of a cell magic line (``%%bash`` gives ``bash``), else None."""
    text = line.lstrip()
    if not text.startswith("%%"):
        return None
    words = text[2:].split()
    return words[0] if words else ""


def _neutralise(lines: list[str], filler: str = "pass") -> list[str]:
    """Replace IPython-only lines of one cell with Python of the same line count.

    Each magic line becomes ``filler`` at the magic's own indentation (``pass``
    keeps a block whose only statement was a magic valid); with an empty
    ``filler`` the line is blanked instead, for magics indented at top level.
    """
    if lines and _cell_magic(lines[0]) is not None:
        if _cell_magic(lines[0]) not in PYTHON_CELL_MAGICS:
            return ["" for _ in lines]  # %%bash, %%html, %%writefile...: not Python at all
        lines = ["", *lines[1:]]
    return _neutralise_lines(lines, filler)


def _neutralise_lines(lines: list[str], filler: str) -> list[str]:
    """Line magics, shell escapes (``!cmd``, ``x = !cmd``) and ``obj?`` help lines replaced one for one."""
    out: list[str] = []
    continued = False
    for line in lines:
        if continued:  # the tail of a magic continued with a backslash
            out.append("")
            continued = line.rstrip().endswith("\\")
            continue
        m = _ASSIGNED_MAGIC.match(line)
        if m and not line.lstrip().startswith(("%", "!")):
            out.append(m.group(1) + "None")
            continued = line.rstrip().endswith("\\")
            continue
        m = _LINE_MAGIC.match(line)
        if m:
            out.append(m.group(1) + filler if filler else "")
            continued = line.rstrip().endswith("\\")
            continue
        m = _HELP.match(line)
        if m:
            out.append(m.group(1) + filler if filler else "")
            continue
        out.append(line)
    return out


def _parses(text: str) -> SyntaxError | None:
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", SyntaxWarning)
            ast.parse(text)
    except SyntaxError as exc:
        return exc
    except (ValueError, RecursionError, MemoryError) as exc:
        return SyntaxError(str(exc))
    return None


# Cell separators that notebook exports leave in a .py file ("# In[3]:", "# %%").
_CELL_MARK = re.compile(r"^\s*#\s*(In\s*\[[\d ]*\]\s*:|%%)")


def _script_cells(lines: list[str]) -> list[str]:
    """A notebook exported as .py: a non-Python cell magic (``%%bash``) blanks its block, up to a blank
    line or a cell marker; other magic lines are left to :func:`_neutralise_lines`."""
    out: list[str] = []
    foreign = False
    for line in lines:
        magic = _cell_magic(line)
        if magic is not None:
            foreign = magic not in PYTHON_CELL_MAGICS
            out.append("")
            continue
        if foreign and (not line.strip() or _CELL_MARK.match(line)):
            foreign = False
        out.append("" if foreign else line)
    return out


def strip_script_magics(text: str) -> tuple[str, list[int]] | None:
    """A .py file exported from a notebook, with its IPython-only lines made Python, and their line numbers.

    Returns None when nothing looked like IPython syntax or the result still does not parse (a genuine
    syntax error). Line numbers never shift; the magic lines become ``pass`` (or blank, for magics
    indented at top level), as in notebooks.
    """
    lines = text.replace("\r\n", "\n").replace("\r", "\n").split("\n")  # Python's own line breaks only
    cells = _script_cells(lines)
    for filler in ("pass", ""):
        fixed = _neutralise_lines(cells, filler)
        changed = [i for i, (old, new) in enumerate(zip(lines, fixed), 1) if old != new]
        if not changed:
            return None
        candidate = "\n".join(fixed)
        if _parses(candidate) is None:
            return candidate, changed
    return None


def notebook_source(text: str) -> NotebookSource:
    """Join a notebook's code cells into one module; raise NotebookError if it is not a notebook."""
    try:
        data = json.loads(text)
    except ValueError as exc:
        raise NotebookError(f"not valid notebook JSON ({exc}); open and re-save it in Jupyter") from None
    except RecursionError:
        raise NotebookError("not a notebook: its JSON is nested too deeply to read (thousands of levels); it was skipped") from None
    problems: list[str] = []
    cells = code_cells(data, problems)
    result = NotebookSource(source="", code_cells=len(cells), problems=problems)
    pieces: list[str] = []
    for cell in cells:
        lines = _neutralise(cell.lines)
        problem = _parses("\n".join(lines))
        if problem is not None:  # e.g. an indented magic at top level: try blanking magics instead
            blanked = _neutralise(cell.lines, filler="")
            if _parses("\n".join(blanked)) is None:
                lines, problem = blanked, None
        if problem is not None:
            where = problem.lineno if isinstance(problem.lineno, int) and problem.lineno >= 1 else None
            result.cell_errors.append((cell.number, where, problem.msg or str(problem)))
            lines = ["" for _ in lines]  # keep the cell's lines so nothing shifts, but drop its code
        for i, line in enumerate(lines, 1):
            pieces.append(line)
            result.line_map.append((cell.number, i))
    result.source = "\n".join(pieces) + ("\n" if pieces else "")
    return result
