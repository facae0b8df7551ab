#!/usr/bin/env bash
# Usage: install_tree.sh BUILD_DIR SOURCE_DIR
# `cmake --install BUILD_DIR --prefix P` into a temporary P must give: bin/dempact that
# runs (and bin/dempact-mpi beside it in an MPI build); every shipped case
# (share/dempact/cases), complete enough that the installed program accepts each one
# (`dempact check`: the CSV files they read came along); every Python tool
# (share/dempact/tools); the verification programs (libexec/dempact); the manual
# (share/doc/dempact: README.md, LICENSE, CITATION.cff, docs/*.md); and a man page
# (share/man/man1/dempact.1) that groff renders without a warning and that names every
# command and option of the installed program.
set -u
build=$1 src=$2
prefix=$(mktemp -d)
trap 'rm -rf "$prefix"' EXIT
fail() { echo "FAIL: $*"; exit 1; }

cmake --install "$build" --prefix "$prefix" > "$prefix.log" 2>&1 ||
  { cat "$prefix.log"; rm -f "$prefix.log"; fail "cmake --install"; }
rm -f "$prefix.log"

dempact=$prefix/bin/dempact
[ -x "$dempact" ] || fail "no bin/dempact"
"$dempact" --version | grep -q "^dempact [0-9]" || fail "installed dempact --version"
# an MPI build's dempact-mpi beside it: what dempact runs under mpirun (CMakeLists.txt)
if [ -x "$build/dempact-mpi" ]; then
  [ -x "$prefix/bin/dempact-mpi" ] || fail "no bin/dempact-mpi beside bin/dempact"
  "$prefix/bin/dempact-mpi" --version | grep -q "^dempact [0-9]" || fail "installed dempact-mpi --version"
fi

for f in "$src"/cases/*; do
  [ -f "$prefix/share/dempact/cases/$(basename "$f")" ] || fail "case file $(basename "$f") not installed"
done
for f in "$prefix"/share/dempact/cases/*.yaml; do
  out=$("$dempact" check "$f" 2>&1) || fail "the installed $(basename "$f") is refused: $out"
done
for f in "$src"/tools/*.py; do
  t=$prefix/share/dempact/tools/$(basename "$f")
  [ -x "$t" ] || fail "tool $(basename "$f") not installed (executable)"
done
for p in hysteresis semi_analytic; do
  [ -x "$prefix/libexec/dempact/$p" ] || fail "libexec/dempact/$p not installed"
done
doc=$prefix/share/doc/dempact
for f in README.md LICENSE CITATION.cff; do
  [ -s "$doc/$f" ] || fail "share/doc/dempact/$f not installed"
done
for f in "$src"/docs/*.md; do
  [ -f "$doc/docs/$(basename "$f")" ] || fail "docs/$(basename "$f") not installed"
done

page=$prefix/share/man/man1/dempact.1
[ -s "$page" ] || fail "no share/man/man1/dempact.1"
text=$(groff -man -Tutf8 -ww "$page" 2> "$prefix/groff.err") || fail "groff cannot render dempact.1"
[ -s "$prefix/groff.err" ] && { cat "$prefix/groff.err"; fail "groff warns on dempact.1"; }
text=$(sed 's/.\x08//g' <<<"$text")   # drop overstrike (bold, underline)
for section in NAME SYNOPSIS DESCRIPTION COMMANDS "EXIT STATUS" FILES EXAMPLES; do
  grep -q "^$section" <<<"$text" || fail "the man page has no $section section"
done
commands=$("$dempact" --help | awk '/^  [a-z]+  / {print $1}')
[ "$(wc -w <<<"$commands")" -ge 6 ] || fail "dempact --help lists fewer than 6 commands"
for c in $commands; do
  grep -q "dempact $c" <<<"$text" || fail "the man page does not describe 'dempact $c'"
  for opt in $("$dempact" "$c" --help | grep -o -- '--[a-z][a-z-]*' | sort -u); do
    grep -q -- "$opt" <<<"$text" || fail "the man page lacks 'dempact $c $opt'"
  done
done
if command -v man > /dev/null; then
  man -l "$page" > /dev/null 2>&1 || fail "man -l cannot render dempact.1"
fi
echo "installed: bin, $(ls "$prefix"/share/dempact/cases | wc -l) case files, $(ls "$prefix"/share/dempact/tools | wc -l) tools, the manual and a man page that renders"
