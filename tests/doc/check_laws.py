#!/usr/bin/env python3
"""Usage: check_laws.py DEMPACT SOURCE_DIR

docs/laws.md against `dempact laws`, `dempact laws --friction` and `dempact laws
--adhesion` (an adhesion law is held to its section as a normal law is). The manual
describes each law in a section whose heading names it in a code span (one section may
name several laws that share their parameters); a section's table whose first header
cell is "parameter" ("adhesion key" for an adhesion law) lists the laws' parameters with
unit, default and range. Fails when
- a law is printed but has no section, or a section names a law that does not exist;
- a law's parameters differ between the two (names), or a parameter's default, unit or
  range differs (numbers compared to the 6 digits `dempact laws` prints);
- the summary table (first header cell "law") says a law calibrates something other than
  what `dempact laws` says ("calibrate solves" column);
- a citation `dempact laws` prints for a law is not in that law's section: its first
  author's surname, its year and its DOI (when it has one);
- laws.md cites a DOI that no law's citations hold, outside its "Friction" sections;
- a tangential, rolling or adhesion law of `dempact laws --friction` or `--adhesion` is
  missing from its `model` table, or a key table's "models" column disagrees with the keys each law takes (one
  row per key and law; a key two laws take in different units has a row for each), or
  its "unit" column with the law's unit.
"""
import math
import os
import re
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import mdtables  # noqa: E402

DOI = re.compile(r"10\.\d{4,9}/[^\s,;)]*(?:\([^\s)]*\)[^\s,;)]*)*(?<![.])")


def program_laws(dempact, flag=None):
    """The laws `dempact laws` (or `dempact laws FLAG`) prints: {name: params, sources,
    calibrate}; a law's line is its name, or "KIND.model NAME"."""
    args = [dempact, "laws"] + ([flag] if flag else [])
    out = subprocess.run(args, check=True, capture_output=True, text=True).stdout
    laws, law, in_source = {}, None, False
    for line in out.splitlines():
        if line and not line.startswith(" "):
            name = re.sub(r"^\w+\.model ", "", line.strip())
            law = laws.setdefault(name, {"params": {}, "sources": [], "calibrate": None})
            continue
        if law is None or not line.strip():
            continue
        m = re.match(r"^  source: (.*)$", line)
        if m:
            law["sources"].append(m.group(1))
            in_source = True
            continue
        if in_source and line.startswith("          "):
            law["sources"].append(line.strip())
            continue
        in_source = False
        m = re.match(r"^  (\w+)\s+default (\S+)(?: \[([^\]]*)\]; range \[([^,]+), ([^\]]+)\]|; one of (.*))$",
                     line)
        if m:
            name, default, unit, lo, hi, choices = m.groups()
            law["params"][name] = {"default": default, "unit": unit,
                                   "range": (lo, hi) if lo is not None else None,
                                   "choices": choices.split() if choices else None}
            continue
        m = re.match(r"^  calibrate: (?:true solves (.*) for the restitution|not available.*)$", line)
        if m:
            law["calibrate"] = m.group(1) or "-"
    if len(laws) < (10 if flag is None else 1):
        sys.exit(f"FAIL: {' '.join(args[1:])} listed only {len(laws)} laws")
    return laws


def program_friction_laws(dempact):
    """{("friction"|"rolling"|"adhesion", model): {key: (default, unit)}} from `dempact laws
    --friction` and `dempact laws --adhesion`."""
    out = "".join(subprocess.run([dempact, "laws", flag], check=True, capture_output=True,
                                 text=True).stdout for flag in ("--friction", "--adhesion"))
    models, keys = {}, None
    for line in out.splitlines():
        m = re.match(r"^(friction|rolling|adhesion)\.model (\w+)", line)
        if m:
            keys = models.setdefault((m.group(1), m.group(2)), {})
            continue
        m = re.match(r"^  (\w+)\s+(?:default (\S+)|required)(?: \[([^\]]*)\])?", line)
        if m and keys is not None and m.group(1) not in ("source", "history"):
            keys[m.group(1)] = (m.group(2) or "required", m.group(3))
    for kind in KEYS_OF_ALL:
        if not any(k == kind for k, _ in models):
            sys.exit(f"FAIL: dempact laws --friction / --adhesion listed no {kind} laws")
    return models


# The keys every model of a kind takes beside its own (the key table has a row for each).
KEYS_OF_ALL = {"friction": {"coefficient"}, "rolling": {"coefficient"}, "adhesion": set()}


def check_friction_tables(text, models, problems):
    """The Friction and Rolling resistance sections: the `model` table lists every law of
    its kind, and the key table ("friction key" / "rolling key", with a "models" column and
    optionally a "unit" column) gives every key a law takes exactly one row naming that
    law (or "all"), in the law's unit, and no key to a law that lacks it. Keys are the
    model's own, so a key two laws take with different units has a row for each."""
    for kind in KEYS_OF_ALL:
        names = {name for k, name in models if k == kind}
        listed, rows_for = set(), {}
        for _, header, rows in mdtables.tables(text):
            if header and plain(header[0]) == "model" and kind == table_kind(header, rows, models):
                for row in rows:
                    listed.update(n for n in mdtables.code_spans(row[0]) if n in names)
            if header and header[0] == f"{kind} key" and "models" in header:
                col = header.index("models")
                ucol = header.index("unit") if "unit" in header else None
                for row in rows:
                    for key in mdtables.code_spans(row[0]):
                        cell = row[col] if col < len(row) else ""
                        unit = row[ucol] if ucol is not None and ucol < len(row) else None
                        rows_for.setdefault(key, []).append((cell, unit))
        for name in sorted(names - listed):
            problems.append(f"docs/laws.md: the {kind} model table does not list '{name}'")
        for (k, name), keys in models.items():
            if k != kind:
                continue
            for key in sorted(set(keys) | KEYS_OF_ALL[kind]):
                rows = [(c, u) for c, u in rows_for.get(key, [])
                        if plain(c) == "all" or name in mdtables.code_spans(c)]
                if not rows_for.get(key):
                    problems.append(f"docs/laws.md: the {kind} key table lacks '{key}' ({name})")
                elif len(rows) != 1:
                    problems.append(f"docs/laws.md: {kind} key '{key}': {len(rows)} rows name "
                                    f"'{name}' (one each)")
                elif rows[0][1] is not None and key in keys and keys[key][1] is not None and \
                        plain(rows[0][1]) != plain(keys[key][1]):
                    problems.append(f"docs/laws.md: {kind} key '{key}' of '{name}': unit "
                                    f"'{rows[0][1]}' in the manual, '{keys[key][1]}' in "
                                    f"dempact laws --{'adhesion' if kind == 'adhesion' else 'friction'}")
        for key, cells in rows_for.items():
            for cell, _ in cells:
                for name in mdtables.code_spans(cell):
                    if (kind, name) not in models:
                        problems.append(f"docs/laws.md: {kind} key '{key}' names '{name}', "
                                        f"which is not a {kind} model")
                    elif key not in models[(kind, name)] and key not in KEYS_OF_ALL[kind]:
                        problems.append(f"docs/laws.md: {kind} key '{key}' is given to "
                                        f"'{name}', which does not take it")


def table_kind(header, rows, models):
    """Which kind of model a `model` table lists: the kind of the names in its first column."""
    for row in rows:
        for name in mdtables.code_spans(row[0]):
            for kind, n in models:
                if n == name:
                    return kind
    return None


def number(text):
    t = text.strip().strip("`").replace("−", "-").replace(" ", "")
    if t in ("inf", "+inf", "∞"):
        return math.inf
    return float(t)


def same_number(a, b):
    try:
        x, y = number(a), number(b)
    except ValueError:
        return False
    if math.isinf(x) or math.isinf(y):
        return x == y
    return abs(x - y) <= 1e-5 * max(abs(x), abs(y)) or x == y


def plain(text):
    """A cell's text without Markdown: code marks, escapes and spaces."""
    return re.sub(r"[`\s\\]", "", text)


def main():
    dempact, src = sys.argv[1], sys.argv[2]
    laws = program_laws(dempact)
    adhesion = program_laws(dempact, "--adhesion")
    every = {**adhesion, **laws}
    text = open(os.path.join(src, "docs", "laws.md"), encoding="utf-8").read()
    problems = []

    # sections that name laws (normal or adhesion): ### headings with code spans
    sections = {}
    for heading, body in mdtables.sections(text, 3):
        for name in mdtables.code_spans(heading):
            if name not in every:
                problems.append(f"docs/laws.md: section '{heading}' names '{name}', which "
                                "dempact laws does not list (nor --adhesion)")
                continue
            sections[name] = (heading, body)
    for name in every:
        if name not in sections:
            problems.append(f"docs/laws.md: no section for law '{name}'")

    for name, (heading, body) in sections.items():
        law = every[name]
        documented = {}
        for _, header, rows in mdtables.tables(body):
            if not header or header[0] not in ("parameter", "adhesion key"):
                continue
            for row in rows:
                spans = mdtables.code_spans(row[0])
                if spans:
                    documented[spans[0]] = dict(zip(header, row))
        for p in sorted(set(law["params"]) - set(documented)):
            problems.append(f"{name}: parameter '{p}' is not in the table of '{heading}'")
        for p in sorted(set(documented) - set(law["params"])):
            problems.append(f"{name}: '{heading}' documents '{p}', which the law does not take")
        for p in sorted(set(law["params"]) & set(documented)):
            want, doc = law["params"][p], documented[p]
            d = plain(doc.get("default", ""))
            if want["default"] == "required" or want["choices"]:
                ok = d == want["default"]
            else:
                ok = same_number(d, want["default"])
            if not ok:
                problems.append(f"{name}.{p}: default '{doc.get('default')}' in the manual, "
                                f"'{want['default']}' in dempact laws")
            if want["choices"]:
                listed = [c for c in re.split(r"[,\s]+", plain(doc.get("range", "")).replace(",", " "))
                          if c]
                if sorted(mdtables.code_spans(doc.get("range", "")) or listed) != sorted(want["choices"]):
                    problems.append(f"{name}.{p}: choices '{doc.get('range')}' in the manual, "
                                    f"{want['choices']} in dempact laws")
                continue
            if plain(doc.get("unit", "")) != plain(want["unit"]):
                problems.append(f"{name}.{p}: unit '{doc.get('unit')}' in the manual, "
                                f"'{want['unit']}' in dempact laws")
            m = re.match(r"^\[([^,]+),([^\]]+)\]$", plain(doc.get("range", "")))
            if not m or not same_number(m.group(1), want["range"][0]) or \
                    not same_number(m.group(2), want["range"][1]):
                problems.append(f"{name}.{p}: range '{doc.get('range')}' in the manual, "
                                f"[{want['range'][0]}, {want['range'][1]}] in dempact laws")

        for ref in law["sources"]:
            surname = re.split(r",", ref)[0].split()[-1]
            year = re.search(r"\((\d{4})\)", ref)
            if surname not in body:
                problems.append(f"{name}: the manual's section does not cite {surname} ({ref[:60]}...)")
            if year and year.group(1) not in body:
                problems.append(f"{name}: the manual's section lacks the year {year.group(1)} of {surname}")
            for doi in DOI.findall(ref):
                if doi not in body:
                    problems.append(f"{name}: the manual's section lacks doi:{doi}")

    # the summary table: what calibrate solves
    for heading, header, rows in mdtables.tables(text):
        if not header or header[0] != "law" or "calibrate solves" not in header:
            continue
        col = header.index("calibrate solves")
        seen = set()
        for row in rows:
            for name in mdtables.code_spans(row[0]):
                if name not in laws:
                    problems.append(f"summary table: '{name}' is not a law")
                    continue
                seen.add(name)
                doc = plain(row[col]) if col < len(row) else ""
                want = plain(laws[name]["calibrate"] or "")
                if doc != want:
                    problems.append(f"summary table: {name} calibrates '{row[col]}' in the manual, "
                                    f"'{laws[name]['calibrate']}' in dempact laws")
        for name in sorted(set(laws) - seen):
            problems.append(f"summary table: {name} is missing")

    # every DOI the manual gives for a law is one the program prints
    printed = {d for law in every.values() for ref in law["sources"] for d in DOI.findall(ref)}
    for heading, body in mdtables.sections(text, 2):
        if "friction" in heading.lower() or "rolling" in heading.lower():
            continue
        for doi in DOI.findall(body):
            if doi not in printed:
                problems.append(f"docs/laws.md ('{heading}') cites doi:{doi}, which no law's "
                                "citations in dempact laws hold")

    friction = program_friction_laws(dempact)
    check_friction_tables(text, friction, problems)

    if problems:
        print("\n".join("FAIL: " + p for p in problems))
        sys.exit(1)
    n = sum(len(l["params"]) for l in laws.values())
    print(f"{len(laws)} laws, {n} parameters and their citations agree with dempact laws; "
          f"so do the {len(adhesion)} adhesion laws, and the {len(friction)} friction, rolling "
          "and adhesion models and their keys")


if __name__ == "__main__":
    main()
