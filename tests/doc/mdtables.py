"""Reading the manual's Markdown for the doc tests: headings and the tables under them."""
import re

CODE = re.compile(r"`([^`]+)`")


def cells(line):
    """The cells of a table row '| a | b |' (an escaped \\| stays in its cell)."""
    inner = line.strip()[1:-1] if line.strip().endswith("|") else line.strip()[1:]
    parts = re.split(r"(?<!\\)\|", inner)
    return [p.strip().replace("\\|", "|") for p in parts]


def tables(text):
    """Yields (heading, header cells, rows) for every table, heading being the text of
    the nearest heading above it ('' before the first)."""
    heading, lines = "", text.splitlines()
    i = 0
    while i < len(lines):
        line = lines[i]
        if line.startswith("#"):
            heading = line.lstrip("#").strip()
        if line.lstrip().startswith("|") and i + 1 < len(lines) and \
                re.match(r"^\s*\|[\s:|-]+\|\s*$", lines[i + 1]):
            header = [c.lower() for c in cells(line)]
            rows = []
            i += 2
            while i < len(lines) and lines[i].lstrip().startswith("|"):
                rows.append(cells(lines[i]))
                i += 1
            yield heading, header, rows
            continue
        i += 1


def sections(text, level):
    """Yields (heading, body) for every heading of exactly `level` #'s, the body running
    to the next heading of that level or above."""
    out, heading, body = [], None, []
    for line in text.splitlines():
        m = re.match(r"^(#+)\s+(.*)$", line)
        if m and len(m.group(1)) <= level:
            if heading is not None:
                out.append((heading, "\n".join(body)))
            heading, body = (m.group(2) if len(m.group(1)) == level else None), []
            continue
        body.append(line)
    if heading is not None:
        out.append((heading, "\n".join(body)))
    return out


def code_spans(text):
    return CODE.findall(text)
