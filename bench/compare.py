"""Every benchmark at two commits, side by side: runs taken in turns, figures in one table.

    .venv/bin/python bench/compare.py --old 5d7661b                  # against this checkout
    .venv/bin/python bench/compare.py --old v1 --new HEAD --repeats 3
    DATABASE_URL=postgres://postgres@127.0.0.1:5432/capicu .venv/bin/python bench/compare.py \\
        --old 5d7661b --only standings,record_hand

Each commit is checked out into a git worktree of its own (removed at the end; ``--new``
defaults to this checkout as it is, uncommitted changes included). Every benchmark in
``bench/`` runs in its quick mode (``QUICK`` below: fewer sizes or runs where the script
takes them), the old and the new in turns (old, new, new, old, ... over ``--repeats``
pairs), so that both see the same machine; a benchmark starts each time in a fresh
process with the same environment (``DATABASE_URL``, ``REDIS_URL``: each builds its own
throwaway database), and one run at a time.

The table has a row for each line a benchmark printed: the line with its figures
replaced by ``#``, then each figure's median over the repeats, old and new, and new/old.
Lines that differ in words between the two commits (or printed by one only) are listed
apart. A benchmark that fails or runs past ``--timeout`` shows its last output lines.
Compare ratios within a run; absolute times move with what else the machine runs.
"""

import argparse
import os
import re
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent

# Arguments for a short run; a benchmark not named runs with none.
QUICK = {
    "finish_stage.py": ["--sizes", "2500", "--runs", "1"],
    "live_load.py": ["--quick"],
    "pairing.py": ["--sizes", "8-32"],
    "pairing_table.py": ["--sizes", "8-24"],
    "player_matching.py": ["--known", "1000", "10000", "--repeats", "1"],
    "ratings.py": ["--sizes", "25000"],
    "standings.py": ["--quick"],
}
# Not benchmarks: what the others import.
HELPERS = {"bootstrap.py", "compare.py"}

# A benchmark runs from its own checkout: the virtual environment's editable install of
# this project would otherwise supply the modules that checkout lacks.
LAUNCH = """
import os, runpy, sys
sys.meta_path[:] = [f for f in sys.meta_path if "editable" not in repr(f).lower()]
script = os.path.abspath(sys.argv[1])
sys.argv = sys.argv[1:]
sys.path.insert(0, os.path.dirname(script))
runpy.run_path(script, run_name="__main__")
"""

# A figure: a number standing alone, or after "x" (x4.02).
NUMBER = re.compile(r"(?:(?<=\bx)|(?<![\w.]))[-+]?\d[\d,]*(?:\.\d+)?")


def benchmarks(root: Path) -> list[str]:
    return sorted(p.name for p in (root / "bench").glob("*.py") if p.name not in HELPERS)


def checkout(revision: str | None, into: Path) -> Path:
    """A worktree at ``revision`` (None: this checkout as it is; a directory: that one)."""
    if revision is None:
        return ROOT
    if Path(revision).is_dir():
        return Path(revision).resolve()
    subprocess.run(
        ["git", "-C", str(ROOT), "worktree", "add", "--detach", str(into), revision],
        check=True,
        capture_output=True,
    )
    return into


def run(root: Path, script: str, timeout: float) -> tuple[bool, str, float]:
    """One run of a benchmark in ``root``: whether it passed, its output, its seconds."""
    started = time.perf_counter()
    command = [sys.executable, "-c", LAUNCH, str(root / "bench" / script), *QUICK.get(script, [])]
    try:
        done = subprocess.run(
            command, cwd=root, capture_output=True, text=True, timeout=timeout, env=os.environ
        )
    except subprocess.TimeoutExpired as expired:
        output = expired.stdout or ""
        if isinstance(output, bytes):
            output = output.decode(errors="replace")
        return False, f"{output}\n(stopped after {timeout:.0f} s)", timeout
    output = done.stdout + (done.stderr if done.returncode else "")
    return done.returncode == 0, output, time.perf_counter() - started


def figures(line: str) -> tuple[str, list[float]]:
    """A line's words with each figure as ``#``, and the figures."""
    found = [float(m.group().replace(",", "")) for m in NUMBER.finditer(line)]
    return NUMBER.sub("#", line.strip()), found


def medians(outputs: list[str]) -> dict[tuple[int, str], list[float]]:
    """Per printed line (its position among lines of the same words, and its words), the
    median of each figure over the runs that printed it."""
    runs: dict[tuple[int, str], list[list[float]]] = {}
    for output in outputs:
        seen: dict[str, int] = {}
        for line in output.splitlines():
            words, found = figures(line)
            if not found:
                continue
            key = (seen.get(words, 0), words)
            seen[words] = key[0] + 1
            runs.setdefault(key, []).append(found)
    return {
        key: [statistics.median(column) for column in zip(*values, strict=False)]
        for key, values in runs.items()
        if len({len(v) for v in values}) == 1
    }


def shown(value: float) -> str:
    return f"{value:.6g}"


def table(name: str, old: list[str], new: list[str]) -> list[str]:
    """A benchmark's rows: each line with the figures both commits agree on written in
    (sizes, counts), the others as ``#``, and those, old and new, in the columns."""
    before, after = medians(old), medians(new)
    lines = [f"### {name}", "", "| line | old | new | new/old |", "|---|---|---|---|"]
    for key, values in after.items():
        if key not in before or len(before[key]) != len(values):
            continue
        pairs = list(zip(before[key], values, strict=True))
        same = iter(shown(a) if a == b else "#" for a, b in pairs)
        label = re.sub("#", lambda _, figures=same: next(figures), key[1])
        moved = [(a, b) for a, b in pairs if a != b]
        lines.append(
            f"| {label[:140]} | {'; '.join(shown(a) for a, _ in moved)} | "
            f"{'; '.join(shown(b) for _, b in moved)} | "
            f"{'; '.join(f'{b / a:.2f}' if a else '-' for a, b in moved)} |"
        )
    apart = [("old", key) for key in before if key not in after]
    apart += [("new", key) for key in after if key not in before]
    if apart:
        lines += ["", "Printed by one commit only (or in other words):"]
        lines += [f"- {side}: {words[:100]}" for side, (_, words) in apart]
    return [*lines, ""]


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--old", required=True, help="the commit (or checkout) to compare against")
    parser.add_argument("--new", help="the commit or checkout to compare (default: this one)")
    parser.add_argument("--repeats", type=int, default=1, help="pairs of runs per benchmark")
    parser.add_argument("--only", help="benchmarks to run, comma-separated (standings,...)")
    parser.add_argument("--skip", default="", help="benchmarks to leave out, comma-separated")
    parser.add_argument("--timeout", type=float, default=1800, help="seconds per run")
    args = parser.parse_args(argv)

    def named(text: str) -> set[str]:
        return {n if n.endswith(".py") else f"{n}.py" for n in text.split(",") if n}

    scratch = Path(tempfile.mkdtemp(prefix="capicu-compare-"))
    roots: dict[str, Path] = {}
    try:
        roots["old"] = checkout(args.old, scratch / "old")
        roots["new"] = checkout(args.new, scratch / "new")
        chosen = [b for b in benchmarks(roots["new"]) if b in benchmarks(roots["old"])]
        if args.only:
            chosen = [b for b in chosen if b in named(args.only)]
        chosen = [b for b in chosen if b not in named(args.skip)]
        load = os.getloadavg()[0] if hasattr(os, "getloadavg") else float("nan")
        print(f"old {args.old}, new {args.new or 'this checkout'}; load average {load:.2f}")
        report = []
        for script in chosen:
            outputs: dict[str, list[str]] = {"old": [], "new": []}
            failed = []
            order = ["old", "new"]
            for _ in range(args.repeats):
                for side in order:
                    passed, output, seconds = run(roots[side], script, args.timeout)
                    print(f"{script:22} {side}: {'ok' if passed else 'FAILED'} in {seconds:.0f} s")
                    if passed:
                        outputs[side].append(output)
                    else:
                        failed.append(f"{side}: " + "\n".join(output.splitlines()[-8:]))
                order.reverse()  # old, new, new, old, ...: each side runs first as often
            report += table(script[:-3], outputs["old"], outputs["new"])
            report += [f"FAILED {text}" for text in failed]
        print()
        print("\n".join(report))
    finally:
        for side in ("old", "new"):
            root = roots.get(side)
            if root is not None and root.parent == scratch:
                subprocess.run(
                    ["git", "-C", str(ROOT), "worktree", "remove", "--force", str(root)],
                    capture_output=True,
                )
        shutil.rmtree(scratch, ignore_errors=True)


if __name__ == "__main__":
    main()
