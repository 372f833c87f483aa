"""The house rules of the source tree, read from the files themselves: packages talk through
each other's public names only, and no module grows past what one can hold in mind. (The
floors themselves, which package may import which, are import-linter's contract in
pyproject.toml, run by `make lint`.)"""

import ast
from pathlib import Path

SOURCE = Path(__file__).parents[1] / "src" / "jurist"
MAX_LINES = 600


def modules() -> list[Path]:
    return sorted(SOURCE.rglob("*.py"))


def package_of(path: Path) -> str:
    parts = path.relative_to(SOURCE).parts
    return parts[0] if len(parts) > 1 else ""


def imported_modules(tree: ast.AST) -> list[str]:
    found = []
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            found.append(node.module)
        elif isinstance(node, ast.Import):
            found += [alias.name for alias in node.names]
    return found


def test_no_package_imports_another_packages_private_modules():
    offenders = []
    for path in modules():
        own = package_of(path)
        for name in imported_modules(ast.parse(path.read_text())):
            parts = name.split(".")
            if parts[0] != "jurist" or len(parts) < 3:
                continue
            if parts[1] != own and any(part.startswith("_") for part in parts[2:]):
                offenders.append(f"{path.relative_to(SOURCE)} imports {name}")
    assert offenders == []


def test_no_source_file_is_over_the_limit():
    long = {
        str(path.relative_to(SOURCE)): lines
        for path in modules()
        if (lines := len(path.read_text().splitlines())) > MAX_LINES
    }
    assert long == {}
