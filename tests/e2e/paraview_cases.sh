#!/usr/bin/env bash
# Usage: paraview_cases.sh DEMPACT SOURCE_DIR [--full]
# Every shipped case (SOURCE_DIR/cases/*.yaml) in ParaView: runs it (cut to two output
# intervals or 0.02 s of simulated time, whichever is shorter: two or three snapshots,
# the first and the last among them; with --full to its end), then tools/render_snapshot.py
# plays its .xmf files in pvpython the way a user does (every step forward, back to the
# first, to the last, to the first again, rendering each frame: ParaView 5.11's XDMF
# readers used to die there) and saves pictures of the first and the last snapshot with
# the particles as spheres, the contacts as lines and the walls; each picture must not
# be blank (png_not_blank.py: 1 % of the pixels drawn; 64 colours, the shading of
# spheres, when the snapshot has particles, else 2: a heap's first snapshot holds only
# its plate). The pictures stay in $DEMPACT_PICTURES when that is set.
set -u
dempact=$1 src=$2 full=${3:-}
here=$(cd "$(dirname "$0")" && pwd)
fail() { echo "FAIL: $*"; exit 1; }
[ -x /usr/bin/pvpython ] || fail "/usr/bin/pvpython missing: install python3-paraview (tools/setup.sh does)"
[ -n "${DISPLAY:-}" ] || command -v Xvfb >/dev/null || fail "no display and no Xvfb: install xvfb (tools/setup.sh does)"
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
export OMP_WAIT_POLICY=passive
n=0
for case_file in "$src"/cases/*.yaml; do
  name=$(sed -n 's/^name: *\([A-Za-z0-9_.-]*\).*/\1/p' "$case_file" | head -n 1)
  interval=$(sed -n 's/^ *output_interval: *\([0-9.e+-]*\).*/\1/p' "$case_file" | head -n 1)
  args=()
  if [ -z "$full" ] && [ -n "$interval" ] && "${DEMPACT_PYTHON:-/usr/bin/python3}" -c "import sys; sys.exit(not float('$interval') > 0)"; then
    args=(--end-time "$("${DEMPACT_PYTHON:-/usr/bin/python3}" -c "print(min(2 * float('$interval'), 0.02))")")
  fi
  "$dempact" run "$case_file" --output "$out/$name" --quiet "${args[@]}" 2> "$out/log" ||
    { cat "$out/log"; fail "$name: run exit $?"; }
  (cd "$out" && /usr/bin/pvpython "$src/tools/render_snapshot.py" "$out/$name/$name.xmf" --play \
    --size 800x600 --time first --out "$out/$name-first.png" --time last --out "$out/$name-last.png") > "$out/pv.log" 2>&1 ||
    { grep -v -e "^$" -e "^ *[0-9]* *0x" "$out/pv.log" | tail -20; fail "$name: ParaView died or failed"; }
  for when in first last; do
    particles=$("${DEMPACT_PYTHON:-/usr/bin/python3}" -c "import h5py; f = h5py.File('$out/$name/$name.h5', 'r'); s = sorted(f['snapshots']);
print(int(f['snapshots'][s[0 if '$when' == 'first' else -1]].attrs['n_particles']))")
    colours=2
    [ "$particles" -gt 0 ] && colours=64
    "${DEMPACT_PYTHON:-/usr/bin/python3}" "$here/png_not_blank.py" "$out/$name-$when.png" 0.01 "$colours" ||
      fail "$name: the $when picture is blank"
    [ -n "${DEMPACT_PICTURES:-}" ] && mkdir -p "$DEMPACT_PICTURES" && cp "$out/$name-$when.png" "$DEMPACT_PICTURES/"
  done
  n=$((n + 1))
done
[ "$n" -ge ${DEMPACT_MIN_CASES:-9} ] || fail "only $n cases in $src/cases"
echo "$n cases played forward, back, last and first in ParaView, first and last snapshots rendered${full:+ (full length)}"
