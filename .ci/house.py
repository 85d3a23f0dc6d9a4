#!/usr/bin/env python3
"""The house rules of issue 33, measured from the code itself.

Prints each measure and exits 1 when one is broken:
- import circles between the library's modules (a module is a file; `use crate::a::b::C`
  is an edge to the deepest module file that exists on that path), at most two, and none
  through the front door (`src/file/`);
- no file over 1,000 lines of code before its `#[cfg(test)]` module;
- `src/main.rs` at most 150 lines, no CLI file over 400, no format type named in the CLI;
- no `fn *_owned`;
- README.md at most 400 lines.
"""
import re
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
SRC = ROOT / "src"


def module_of(path: Path) -> str:
    rel = path.relative_to(SRC).with_suffix("")
    parts = list(rel.parts)
    if parts[-1] == "mod":
        parts = parts[:-1]
    return "::".join(parts) if parts != ["lib"] else ""


def code_lines(text: str) -> int:
    """Lines before the first `#[cfg(test)]` module (the measure issue 33 used)."""
    lines = text.splitlines()
    for i, line in enumerate(lines):
        if line.startswith("#[cfg(test)]") and i + 1 < len(lines) and "mod " in lines[i + 1]:
            return i
    return len(lines)


def main() -> int:
    files = sorted(p for p in SRC.rglob("*.rs"))
    lib_files = [p for p in files if not (p.name == "main.rs" or "cli" in p.relative_to(SRC).parts)]
    modules = {module_of(p): p for p in lib_files}
    edges: dict[str, set[str]] = {m: set() for m in modules}
    use_re = re.compile(r"\b(?:crate|super)::([A-Za-z0-9_:]+)")
    for m, p in modules.items():
        text = p.read_text()
        cut = text.find("#[cfg(test)]\nmod ")
        if cut >= 0:
            text = text[:cut]
        text = "\n".join(x for x in text.splitlines() if not x.strip().startswith("//"))
        for raw in use_re.findall(text):
            # resolve super:: relative to m
            whole = re.search(r"\b(crate|super)::" + re.escape(raw), text)
            path = raw.split("::")
            base: list[str] = []
            if whole and whole.group(1) == "super":
                is_mod = p.name == "mod.rs" or p.name == "lib.rs"
                base = m.split("::")[:-1] if m else []
                if is_mod:
                    base = m.split("::")[:-1]
            cand = base + path
            target = None
            for k in range(len(cand), 0, -1):
                name = "::".join(cand[:k])
                if name in modules:
                    target = name
                    break
            if target is not None and target != m and not m.startswith(target + "::") and target != "":
                edges[m].add(target)
    # strongly connected components (Tarjan)
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on: set[str] = set()
    sccs: list[list[str]] = []
    counter = [0]
    sys.setrecursionlimit(10000)

    def strong(v: str) -> None:
        index[v] = low[v] = counter[0]
        counter[0] += 1
        stack.append(v)
        on.add(v)
        for w in edges[v]:
            if w not in index:
                strong(w)
                low[v] = min(low[v], low[w])
            elif w in on:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            comp = []
            while True:
                w = stack.pop()
                on.discard(w)
                comp.append(w)
                if w == v:
                    break
            if len(comp) > 1:
                sccs.append(sorted(comp))

    for v in modules:
        if v not in index:
            strong(v)
    bad = []
    print(f"import circles: {len(sccs)} (at most 2)")
    for c in sccs:
        print("  " + " <-> ".join(c))
        if any(x == "file" or x.startswith("file::") for x in c):
            bad.append("a circle takes in the front door: " + ", ".join(c))
    if len(sccs) > 2:
        bad.append(f"{len(sccs)} import circles")
    big = []
    for p in files:
        n = code_lines(p.read_text())
        if n > 1000:
            big.append((n, p))
    print(f"files over 1,000 lines of code: {len(big)}")
    for n, p in sorted(big, reverse=True):
        print(f"  {n:5} {p.relative_to(ROOT)}")
        bad.append(f"{p.relative_to(ROOT)} has {n} lines of code")
    main_rs = SRC / "main.rs"
    n_main = len(main_rs.read_text().splitlines())
    print(f"src/main.rs: {n_main} lines (at most 150)")
    if n_main > 150:
        bad.append(f"src/main.rs has {n_main} lines")
    cli = [main_rs] + sorted((SRC / "cli").rglob("*.rs"))
    fmt_types = re.compile(
        r"\b(FileMesh|Csgphs|Csgmdl|CsgmdlFile|UnigineMesh|UnigineAnim|StfContainer|MeshVersion|"
        r"filemesh::|csg::|unigine::|stf::)"
    )
    for p in cli:
        text = p.read_text()
        n = len(text.splitlines())
        if n > 400:
            bad.append(f"{p.relative_to(ROOT)} has {n} lines (CLI files at most 400)")
        for i, line in enumerate(text.splitlines(), 1):
            if line.strip().startswith("//") or line.rstrip().endswith("\\"):
                continue
            if fmt_types.search(re.sub(r'"(?:[^"\\]|\\.)*"', '""', line)):
                bad.append(f"{p.relative_to(ROOT)}:{i} names a format type: {line.strip()}")
    owned = []
    for p in files:
        for i, line in enumerate(p.read_text().splitlines(), 1):
            if re.search(r"\bfn [a-z0-9_]*_owned\b", line):
                owned.append(f"{p.relative_to(ROOT)}:{i}")
    print(f"fn *_owned: {len(owned)}")
    bad += [f"fn *_owned at {o}" for o in owned]
    n_readme = len((ROOT / "README.md").read_text().splitlines())
    print(f"README.md: {n_readme} lines (at most 400)")
    if n_readme > 400:
        bad.append(f"README.md has {n_readme} lines")
    for b in bad:
        print("house rule broken:", b)
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
