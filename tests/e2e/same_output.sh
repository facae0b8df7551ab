#!/usr/bin/env bash
# Usage: same_output.sh A B  (two output folders of runs of the same case)
# Exit 0 when they hold the same HDF5 files with the same contents, bit for bit: the
# index file NAME.h5 (whose snapshots are external links, which h5diff does not follow)
# and every snapshot file NAME.d/NNNNNN.h5. Prints the first difference otherwise.
set -u
a=$1 b=$2
files=$(cd "$a" && find . -name '*.h5' | sort)
[ "$files" = "$(cd "$b" && find . -name '*.h5' | sort)" ] || { echo "the folders hold different files"; exit 1; }
[ -n "$files" ] || { echo "no HDF5 files in $a"; exit 1; }
for f in $files; do
  h5diff "$a/$f" "$b/$f" >/dev/null 2>&1 || { echo "$f differs:"; h5diff "$a/$f" "$b/$f" 2>&1 | head -20; exit 1; }
done
exit 0
