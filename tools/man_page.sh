#!/bin/sh
# Usage: man_page.sh HELP2MAN DEMPACT INCLUDE OUT
# Writes dempact's man page OUT from the built program, so that it never disagrees with
# it: help2man turns `dempact --help` and `--version` into NAME, SYNOPSIS and
# DESCRIPTION, INCLUDE (tools/dempact.h2m) adds the hand-written sections, and a
# COMMANDS section holds each command's own `--help`, verbatim, for every command that
# `dempact --help` lists.
set -eu
help2man=$1 dempact=$2 include=$3 out=$4
tmp=$(mktemp)
trap 'rm -f "$tmp"' EXIT
cat "$include" > "$tmp"
printf '[COMMANDS]\nEach command takes \\fB--help\\fR, which prints what follows.\n' >> "$tmp"
commands=$("$dempact" --help | awk '/^  [a-z]+  / {print $1}')
[ -n "$commands" ] || { echo "man_page.sh: no commands in '$dempact --help'" >&2; exit 1; }
for c in $commands; do
  printf '.SS "dempact %s"\n.nf\n' "$c" >> "$tmp"
  # roff: a backslash is \e, and a line may not start with a control character
  "$dempact" "$c" --help | sed -e 's/\\/\\e/g' -e "s/^\\([.']\\)/\\\\\\&\\1/" >> "$tmp"
  printf '.fi\n' >> "$tmp"
done
"$help2man" --no-info --no-discard-stderr --section 1 \
  --name "a soft-sphere discrete element (DEM) engine" --include "$tmp" --output "$out" "$dempact"
