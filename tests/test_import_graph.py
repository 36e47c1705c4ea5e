"""The apps talk through public functions: the import graph of capicu's own modules.

Three rules, each checked over every module of the apps (not the tests, benchmarks or
migrations):

* no module imports a name starting with ``_`` from a module of another package (a
  module may use its own package's private helpers, nobody else's);
* no circle of imports between modules, counting imports inside functions too (a
  deferred import still makes a circle, it only hides it from the interpreter);
* an import inside a function says why in a comment on its line or the line above.
"""

import ast
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
APPS = (
    "domain",
    "jobs",
    "accounts",
    "scoring",
    "tournaments",
    "players",
    "circuit",
    "config",
    "operations",
)


@dataclass(frozen=True)
class Import:
    importer: str
    target: str  # a module of the apps
    name: str | None  # the name taken from it, for "from target import name"
    line: int
    local: bool  # inside a function
    commented: bool


def module_name(path: Path) -> str:
    parts = list(path.relative_to(ROOT).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def app_modules() -> dict[str, Path]:
    found = {}
    for app in APPS:
        for path in sorted((ROOT / app).rglob("*.py")):
            if "migrations" in path.parts:
                continue
            found[module_name(path)] = path
    return found


def package_of(module: str, modules: dict[str, Path]) -> str:
    """The package a module belongs to (itself, for a package's __init__)."""
    if modules[module].name == "__init__.py":
        return module
    return module.rpartition(".")[0]


def absolute(node: ast.ImportFrom, importer: str, is_package: bool) -> str:
    if not node.level:
        return node.module or ""
    base = importer.split(".")
    if not is_package:
        base = base[:-1]
    base = base[: len(base) - (node.level - 1)]
    return ".".join(base + ([node.module] if node.module else []))


def imports_of(module: str, path: Path, modules: dict[str, Path]) -> list[Import]:
    source = path.read_text()
    lines = source.splitlines()
    found = []

    def commented(node: ast.stmt) -> bool:
        own = lines[node.lineno - 1]
        above = lines[node.lineno - 2].strip() if node.lineno > 1 else ""
        return "#" in own or above.startswith("#")

    def visit(node: ast.AST, local: bool) -> None:
        for child in ast.iter_child_nodes(node):
            inside = local or isinstance(child, ast.FunctionDef | ast.AsyncFunctionDef)
            if isinstance(child, ast.ImportFrom):
                base = absolute(child, module, path.name == "__init__.py")
                for alias in child.names:
                    whole = f"{base}.{alias.name}"
                    if whole in modules:
                        target, name = whole, None
                    elif base in modules:
                        target, name = base, alias.name
                    else:
                        continue
                    found.append(
                        Import(module, target, name, child.lineno, local, commented(child))
                    )
            elif isinstance(child, ast.Import):
                for alias in child.names:
                    if alias.name in modules:
                        found.append(
                            Import(module, alias.name, None, child.lineno, local, commented(child))
                        )
            visit(child, inside)

    visit(ast.parse(source), False)
    return found


def all_imports() -> tuple[dict[str, Path], list[Import]]:
    modules = app_modules()
    found = []
    for module, path in modules.items():
        found.extend(imports_of(module, path, modules))
    return modules, found


def circles(modules: dict[str, Path], imports: list[Import]) -> list[list[str]]:
    """The strongly connected parts of the graph with more than one module (Tarjan)."""
    graph: dict[str, set[str]] = {module: set() for module in modules}
    for each in imports:
        if each.target != each.importer:
            graph[each.importer].add(each.target)
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found = []

    def connect(start: str) -> None:
        # Iterative, so a deep graph never reaches the recursion limit.
        work = [(start, iter(sorted(graph[start])))]
        index[start] = low[start] = len(index)
        stack.append(start)
        on_stack.add(start)
        while work:
            node, successors = work[-1]
            for successor in successors:
                if successor not in index:
                    index[successor] = low[successor] = len(index)
                    stack.append(successor)
                    on_stack.add(successor)
                    work.append((successor, iter(sorted(graph[successor]))))
                    break
                if successor in on_stack:
                    low[node] = min(low[node], index[successor])
            else:
                work.pop()
                if work:
                    parent = work[-1][0]
                    low[parent] = min(low[parent], low[node])
                if low[node] == index[node]:
                    part = []
                    while True:
                        member = stack.pop()
                        on_stack.discard(member)
                        part.append(member)
                        if member == node:
                            break
                    if len(part) > 1:
                        found.append(sorted(part))

    for module in sorted(graph):
        if module not in index:
            connect(module)
    return found


def test_no_module_takes_a_private_name_from_another_package():
    modules, imports = all_imports()
    taken = [
        f"{each.importer}:{each.line} takes {each.name} from {each.target}"
        for each in imports
        if each.name
        and each.name.startswith("_")
        and not each.name.startswith("__")
        and package_of(each.importer, modules) != package_of(each.target, modules)
    ]
    assert taken == []


def test_no_circle_of_imports_between_modules():
    modules, imports = all_imports()
    assert circles(modules, imports) == []


def test_an_import_inside_a_function_says_why():
    _, imports = all_imports()
    silent = sorted(
        {
            f"{each.importer}:{each.line} imports {each.target}"
            for each in imports
            if each.local and not each.commented
        }
    )
    assert silent == []


def test_the_graph_sees_what_it_checks():
    """The walk itself: it finds the modules, their imports and a circle made on purpose."""
    modules, imports = all_imports()
    assert "scoring.engine" in modules and "tournaments.models" in modules
    assert any(
        each.importer == "tournaments.models" and each.target.startswith("scoring")
        for each in imports
    )
    made = [
        Import("a", "b", None, 1, False, False),
        Import("b", "c", None, 1, True, True),
        Import("c", "a", None, 1, False, False),
        Import("c", "d", None, 1, False, False),
    ]
    assert circles(dict.fromkeys("abcd", Path("x.py")), made) == [["a", "b", "c"]]


if __name__ == "__main__":  # a report of what the tests above would refuse, by module
    found_modules, found_imports = all_imports()
    for each in found_imports:
        if (
            each.name
            and each.name.startswith("_")
            and not each.name.startswith("__")
            and package_of(each.importer, found_modules) != package_of(each.target, found_modules)
        ):
            print(f"private  {each.importer}:{each.line} takes {each.name} from {each.target}")
    for part in circles(found_modules, found_imports):
        print("circle  ", " ".join(part))
    for each in found_imports:
        if each.local and not each.commented:
            print(f"silent   {each.importer}:{each.line} imports {each.target}")
