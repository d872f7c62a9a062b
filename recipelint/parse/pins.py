"""The package pins a repository declares, read without running anything: requirements*.txt
(following `-r other.txt`), setup.py's `install_requires` (read with `ast`, also the `_deps`
table transformers' own setup.py keeps and `deps["x"]` / `deps_list("x")` take from), setup.cfg,
pyproject.toml's `[project]` dependencies (and the requirements files setuptools' dynamic metadata
names) and Poetry's, conda's environment.yml (its conda
dependencies and its `pip:` list), and a Dockerfile's `pip install x==v`. Each pin keeps its
file and line."""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from recipelint.records import dataclass, replace
from recipelint.versions import clauses, normal

PIN_FILES = ("requirements*.txt", "setup.py", "setup.cfg", "pyproject.toml", "environment.yml", "environment.yaml", "Dockerfile")
MAX_INCLUDES = 4  # how deep `-r other.txt` is followed (a loop or a long chain stops there)
MAX_BYTES = 1_000_000
_REQUIREMENT = re.compile(r"\s*([A-Za-z0-9][A-Za-z0-9._-]*)\s*(\[[^\]]*\])?\s*\(?\s*([^;#]*?)\s*\)?\s*(?:[;#].*)?$")


@dataclass(frozen=True)
class Pin:
    name: str  # normalised: "deepspeed", "torch"
    specifier: str  # ">=0.14.0", "==2.1.2", "" when only the name is given
    path: Path
    line: int
    extra: str = ""  # the optional extra that asks for it ("deepspeed" in `pip install .[deepspeed]`)

    @property
    def where(self) -> str:
        from recipelint.parse.where import shown

        extra = f" (extra '{self.extra}')" if self.extra else ""
        return f"{shown(self.path)}:{self.line}{extra}"


def requirement(text: str, path: Path, line: int) -> Pin | None:
    """One PEP 508 requirement ('deepspeed>=0.14.0; python_version>"3.8"'); None for a URL or
    anything that is not a name with version specifiers."""
    match = _REQUIREMENT.match(text)
    if match is None or "@" in text.split(";")[0]:
        return None
    specifier = match.group(3).replace(" ", "")
    if specifier and clauses(specifier) is None:
        return None
    return Pin(normal(match.group(1)), specifier, path, line)


def _text(path: Path) -> str | None:
    """A pin file's text; None when it is not a regular file (a FIFO never blocks the run) or
    cannot be read. Only the first MAX_BYTES are read."""
    from recipelint.parse.files import head

    data = head(path, MAX_BYTES)
    return data.decode("utf-8", "replace") if data is not None else None


def requirements_txt(path: Path, depth: int = 0) -> Iterator[Pin]:
    text = _text(path)
    if text is None:
        return
    for number, raw in enumerate(text.splitlines(), 1):
        line = raw.strip()
        include = re.match(r"(?:-r|--requirement)[\s=]+(\S+)", line)
        if include and depth < MAX_INCLUDES:
            yield from requirements_txt(path.parent / include.group(1), depth + 1)
        elif line and not line.startswith(("-", "#")):
            pin = requirement(line, path, number)
            if pin is not None:
                yield pin


def setup_py(path: Path) -> Iterator[Pin]:
    """`install_requires=[...]` and `extras_require={...: [...]}` of any call, the lists given
    inline or bound to a module-level name, or read from a requirements file (_read_from_file)."""
    import ast

    text = _text(path)
    if text is None:
        return
    try:
        tree = ast.parse(text)
    except (SyntaxError, ValueError):
        return
    names: dict[str, Any] = {}
    for statement in tree.body:
        if isinstance(statement, ast.Assign) and len(statement.targets) == 1 and isinstance(statement.targets[0], ast.Name):
            names[statement.targets[0].id] = statement.value
    yield from _deps_table(tree, names, path)
    for call in (node for node in ast.walk(tree) if isinstance(node, ast.Call)):
        for keyword in call.keywords:
            value = names.get(keyword.value.id, keyword.value) if isinstance(keyword.value, ast.Name) else keyword.value
            lists: list[tuple[ast.expr | None, str]] = [(value, "")] if keyword.arg == "install_requires" else []
            if keyword.arg == "extras_require" and isinstance(value, ast.Dict):
                lists = [(v, str(k.value) if isinstance(k, ast.Constant) else "?") for k, v in zip(value.keys, value.values, strict=True)]
            for lst, extra in lists:
                found = _listed(lst, path) if isinstance(lst, (ast.List, ast.Tuple)) else _read_from_file(lst, path)
                yield from (replace(pin, extra=str(extra)) if extra else pin for pin in found)


def _listed(lst: Any, path: Path) -> Iterator[Pin]:
    import ast

    for item in lst.elts:
        if isinstance(item, ast.Constant) and isinstance(item.value, str):
            pin = requirement(item.value, path, item.lineno)
            if pin is not None:
                yield pin


def _read_from_file(value: Any, path: Path) -> Iterator[Pin]:
    """`install_requires=fetch_requirements("requirements.txt")`, `open("requirements/train.txt")
    .read().splitlines()`: a call whose only text literal names a requirements file beside
    setup.py is that file's pins (the helper's body is not run; a file outside the folder is not read)."""
    import ast

    if not isinstance(value, ast.Call):
        return
    texts = [n.value for n in ast.walk(value) if isinstance(n, ast.Constant) and isinstance(n.value, str)]
    named = [t for t in texts if t.endswith(".txt")]
    if len(named) != 1:
        return
    target = path.parent / named[0]
    if target.is_file() and path.parent.resolve() in target.resolve().parents:
        yield from requirements_txt(target)


def _deps_table(tree: Any, names: dict[str, Any], path: Path) -> Iterator[Pin]:
    """transformers' setup.py pattern: a module-level `_deps = ["torch>=2.0", ...]` table, from
    which `deps["torch"]` and `deps_list("torch", ...)` build install_requires and the extras; a
    package the file takes from the table is pinned as the table says."""
    import ast

    table = names.get("_deps")
    if not isinstance(table, (ast.List, ast.Tuple)):
        return
    taken: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Subscript) and isinstance(node.value, ast.Name) and node.value.id == "deps":
            if isinstance(node.slice, ast.Constant) and isinstance(node.slice.value, str):
                taken.add(normal(node.slice.value))
        elif isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == "deps_list":
            taken.update(normal(a.value) for a in node.args if isinstance(a, ast.Constant) and isinstance(a.value, str))
    for item in table.elts:
        if isinstance(item, ast.Constant) and isinstance(item.value, str):
            pin = requirement(item.value, path, item.lineno)
            if pin is not None and pin.name in taken:
                yield pin


_PIP_INSTALL = re.compile(r"\bpip3?\s+install\s+(.+)")


def dockerfile(path: Path) -> Iterator[Pin]:
    """`RUN pip install transformers==4.37.2 "deepspeed>=0.14"`: each argument that is a name with a
    version specifier (options, URLs, `-r file` and bare names say nothing of the release), lines
    continued with a backslash read as one; each pin keeps the line it is written on."""
    text = _text(path)
    if text is None:
        return
    lines = text.splitlines()
    index = 0
    while index < len(lines):
        first = index
        logical = lines[index]
        while logical.rstrip().endswith("\\") and index + 1 < len(lines):
            index += 1
            logical = logical.rstrip()[:-1] + " " + lines[index]
        index += 1
        yield from _pip_install(logical, lines, first, path)


def _pip_install(logical: str, lines: list[str], first: int, path: Path) -> Iterator[Pin]:
    import shlex

    for match in _PIP_INSTALL.finditer(logical):
        command = re.split(r"&&|;|\|\|", match.group(1))[0]
        try:
            words = shlex.split(command, comments=True)
        except ValueError:
            continue
        for word in words:
            if word.startswith("-") or not any(op in word for op in ("==", ">=", "<=", "~=", "<", ">")):
                continue
            if any(op in word for op in "<>") and re.search(rf"(?<![\"'\w]){re.escape(word)}(?![\"'])", command):
                continue  # unquoted, the shell takes `>=0.14` as a redirection: the package is installed unpinned
            number = next((n + 1 for n in range(first, len(lines)) if word in lines[n]), first + 1)
            pin = requirement(word, path, number)
            if pin is not None:
                yield pin


def setup_cfg(path: Path) -> Iterator[Pin]:
    """`[options] install_requires` and `[options.extras_require]`: indented lines under a key."""
    text = _text(path)
    if text is None:
        return
    section, key = "", ""
    for number, raw in enumerate(text.splitlines(), 1):
        if raw.strip().startswith(("#", ";")) or not raw.strip():
            continue
        header = re.match(r"\s*\[([^\]]+)\]", raw)
        if header:
            section, key = header.group(1).strip(), ""
            continue
        wanted = (section == "options" and key == "install_requires") or section == "options.extras_require"
        if raw[:1].isspace() and wanted:
            pin = requirement(raw.strip(), path, number)
            if pin is not None:
                yield pin
            continue
        entry = re.match(r"([A-Za-z0-9_.-]+)\s*=\s*(.*)", raw)
        if entry:
            key = entry.group(1)
            if ((section == "options" and key == "install_requires") or section == "options.extras_require") and entry.group(2):
                pin = requirement(entry.group(2).strip(), path, number)
                if pin is not None:
                    yield pin


def pyproject(path: Path) -> Iterator[Pin]:
    """`[project] dependencies` and `[project.optional-dependencies]`, then Poetry's
    `[tool.poetry.dependencies]` and its groups'; the line is the first one that holds the
    requirement's text."""
    import tomllib

    text = _text(path)
    if text is None:
        return
    try:
        document = tomllib.loads(text)
    except tomllib.TOMLDecodeError:
        return
    project = document.get("project", {})
    tool = document.get("tool", {})
    if isinstance(tool, dict) and isinstance(tool.get("poetry"), dict):
        yield from _poetry(tool["poetry"], text, path)
    if not isinstance(project, dict):
        return
    yield from _dynamic(project, tool, path)
    items = [(item, "") for item in list(project.get("dependencies", []) or [])]
    for name, extra in (project.get("optional-dependencies", {}) or {}).items():
        items.extend((item, str(name)) for item in (extra if isinstance(extra, list) else []))
    lines = text.splitlines()
    for item, extra_name in ((i, e) for i, e in items if isinstance(i, str)):
        number = next((n for n, line in enumerate(lines, 1) if item in line), 1)
        pin = requirement(item, path, number)
        if pin is not None:
            yield replace(pin, extra=extra_name) if extra_name else pin


def _dynamic(project: dict[str, Any], tool: Any, path: Path) -> Iterator[Pin]:
    """setuptools' dynamic metadata: `dynamic = ["dependencies", "optional-dependencies"]` with
    `[tool.setuptools.dynamic] dependencies = {file = ["requirements.txt"]}` and
    `optional-dependencies.train = {file = ["requirements/train.txt"]}`: the named files' pins
    (relative to the pyproject's folder, read as requirements files)."""
    dynamic = project.get("dynamic", [])
    table = tool.get("setuptools", {}).get("dynamic", {}) if isinstance(tool, dict) and isinstance(tool.get("setuptools"), dict) else {}
    if not isinstance(dynamic, list) or not isinstance(table, dict):
        return
    sources: list[tuple[Any, str]] = []
    if "dependencies" in dynamic:
        sources.append((table.get("dependencies"), ""))
    extras = table.get("optional-dependencies")
    if "optional-dependencies" in dynamic and isinstance(extras, dict):
        sources.extend((entry, str(name)) for name, entry in extras.items())
    for entry, extra in sources:
        files = entry.get("file") if isinstance(entry, dict) else None
        for name in [files] if isinstance(files, str) else files if isinstance(files, list) else []:
            target = path.parent / str(name)
            if target.is_file() and path.parent.resolve() in target.resolve().parents:
                yield from (replace(pin, extra=extra) if extra else pin for pin in requirements_txt(target))


def _poetry(poetry: dict[str, Any], text: str, path: Path) -> Iterator[Pin]:
    """Poetry's tables of `name = "constraint"` (or `{version = "..."}`): the main dependencies,
    the legacy dev-dependencies and each group that `poetry install` installs (not `optional`)."""
    tables = [poetry.get("dependencies"), poetry.get("dev-dependencies")]
    groups = poetry.get("group")
    for group in groups.values() if isinstance(groups, dict) else []:
        if isinstance(group, dict) and not group.get("optional", False):
            tables.append(group.get("dependencies"))
    lines = text.splitlines()
    for table in (t for t in tables if isinstance(t, dict)):
        for name, constraint in table.items():
            version = constraint.get("version") if isinstance(constraint, dict) else constraint
            specifier = poetry_specifier(version) if isinstance(version, str) and name != "python" else None
            if specifier is None:
                continue  # a path, a git source, several constraints by marker, or `||`: no release said
            number = next((n for n, line in enumerate(lines, 1) if re.match(rf"\s*[\"']?{re.escape(name)}[\"']?\s*=", line)), 1)
            pin = requirement(f"{name}{specifier}", path, number)
            if pin is not None:
                yield pin


def poetry_specifier(constraint: str) -> str | None:
    """A Poetry constraint as a PEP 440 specifier (python-poetry.org/docs/dependency-specification):
    a bare `0.12.2` is exact, `^1.2.3` allows what leaves the first non-zero part alone
    (>=1.2.3,<2.0.0; ^0.12.2 is >=0.12.2,<0.13.0), `~1.2.3` the last given part's minor
    (>=1.2.3,<1.3.0), `*` anything; None for `||`, which one specifier cannot say."""
    if "||" in constraint:
        return None
    clauses = [c.replace(" ", "") for c in constraint.split(",") if c.strip()]
    out = []
    for clause in clauses:
        if clause == "*":
            continue
        if clause[0].isdigit():
            out.append(f"=={clause}")
        elif clause[0] in "^~" and not clause.startswith("~="):
            bounds = _bump(clause[1:], caret=clause[0] == "^")
            if bounds is None:
                return None
            out.append(bounds)
        else:
            out.append(clause)
    return ",".join(out)


def _bump(version: str, caret: bool) -> str | None:
    """The range `^version` (caret) or `~version` (tilde) allows, as >=version,<upper."""
    parts = version.split(".")
    if not all(part.isdigit() for part in parts):
        return None
    numbers = [int(part) for part in parts]
    if caret:
        index = next((i for i, n in enumerate(numbers) if n != 0), len(numbers) - 1)
    else:
        index = min(1, len(numbers) - 1)  # ~1 is >=1,<2; ~1.2 and ~1.2.3 keep the minor
    upper = [*numbers[:index], numbers[index] + 1] + [0] * (len(numbers) - index - 1)
    return f">={version},<{'.'.join(map(str, upper))}"


def environment_yml(path: Path) -> Iterator[Pin]:
    """Conda's `dependencies:` list (`pytorch=2.1.2` is 2.1.2.*, `deepspeed>=0.14`, a channel
    prefix dropped) and its `pip:` list (requirements)."""
    text = _text(path)
    if text is None:
        return
    pip_indent: int | None = None
    for number, raw in enumerate(text.splitlines(), 1):
        item = re.match(r"(\s*)-\s+(.+?)\s*$", raw)
        if item is None:
            if raw.strip() and not raw.strip().startswith("#") and pip_indent is not None and len(raw) - len(raw.lstrip()) <= pip_indent:
                pip_indent = None
            continue
        indent, text_item = len(item.group(1)), item.group(2).split("#")[0].strip().strip("'\"")
        if pip_indent is not None and indent <= pip_indent:
            pip_indent = None
        if re.match(r"pip\s*:", text_item):
            pip_indent = indent
            continue
        if pip_indent is not None:
            pin = requirement(text_item, path, number)
        else:
            pin = _conda(text_item.split("::")[-1], path, number)
        if pin is not None:
            yield pin


def _conda(spec: str, path: Path, line: int) -> Pin | None:
    """'pytorch=2.1.2=py3.10_cuda12.1' -> torch ==2.1.2.*; 'deepspeed>=0.14' as pip reads it."""
    match = re.match(r"([A-Za-z0-9][A-Za-z0-9._-]*)\s*(.*)$", spec)
    if match is None:
        return None
    rest = match.group(2).replace(" ", "")
    if rest.startswith("=") and not rest.startswith("=="):
        version = rest[1:].split("=")[0]
        rest = f"=={version.rstrip('*').rstrip('.')}.*" if version else ""
    return requirement(f"{match.group(1)}{rest}", path, line)


READERS = {
    "setup.py": setup_py,
    "setup.cfg": setup_cfg,
    "pyproject.toml": pyproject,
    "environment.yml": environment_yml,
    "environment.yaml": environment_yml,
    "Dockerfile": dockerfile,
}


def read(path: Path) -> Iterator[Pin]:
    """The pins of one file, by its name."""
    reader = READERS.get(path.name)
    if reader is not None:
        yield from reader(path)
    elif path.name.startswith("requirements") and path.name.endswith(".txt"):
        yield from requirements_txt(path)
