#!/usr/bin/env python3
"""Usage: check_links.py SOURCE_DIR

Every relative link and image in README.md and docs/*.md must point at a file of the
repository, and a link to #anchor (in the same page or another .md) at one of that page's
headings, as GitHub names them. Links to the web are not followed.
"""
import glob
import os
import re
import sys

LINK = re.compile(r"!?\[(?:[^\]\[]|\[[^\]]*\])*\]\(\s*<?([^)\s>]+)>?(?:\s+\"[^\"]*\")?\s*\)")
REFERENCE = re.compile(r"^\s*\[[^\]]+\]:\s*(\S+)", re.M)
FENCE = re.compile(r"^```.*?^```", re.M | re.S)


def slug(heading):
    s = re.sub(r"[`*]|<[^>]*>", "", heading.strip()).lower()
    s = re.sub(r"\[([^\]]*)\]\([^)]*\)", r"\1", s)
    s = re.sub(r"[^\w\- ]", "", s)
    return s.replace(" ", "-")


def anchors(path):
    seen, out = {}, set()
    text = FENCE.sub("", open(path, encoding="utf-8").read())
    for line in text.splitlines():
        m = re.match(r"^#{1,6}\s+(.*?)\s*#*\s*$", line)
        if m:
            s = slug(m.group(1))
            n = seen.get(s, 0)
            out.add(s if n == 0 else f"{s}-{n}")
            seen[s] = n + 1
    return out


def main():
    src = sys.argv[1]
    pages = [os.path.join(src, "README.md")] + sorted(glob.glob(os.path.join(src, "docs", "*.md")))
    problems, count = [], 0
    for page in pages:
        text = FENCE.sub("", open(page, encoding="utf-8").read())
        text = re.sub(r"`[^`\n]*`", "", text)  # code spans are not links
        for target in LINK.findall(text) + REFERENCE.findall(text):
            if re.match(r"^[a-z][a-z0-9+.-]*:", target):  # http:, https:, mailto:
                continue
            count += 1
            where = os.path.relpath(page, src)
            path, _, anchor = target.partition("#")
            dest = os.path.normpath(os.path.join(os.path.dirname(page), path)) if path else page
            if not os.path.exists(dest):
                problems.append(f"{where}: link to {target}: no such file")
                continue
            if os.path.relpath(dest, src).startswith(".."):
                problems.append(f"{where}: link to {target} leaves the repository")
                continue
            if anchor and dest.endswith(".md") and anchor not in anchors(dest):
                problems.append(f"{where}: link to {target}: {os.path.relpath(dest, src)} has no "
                                f"heading #{anchor}")
    if problems:
        print("\n".join("FAIL: " + p for p in problems))
        sys.exit(1)
    print(f"{count} relative links in {len(pages)} pages resolve")


if __name__ == "__main__":
    main()
