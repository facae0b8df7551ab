#!/usr/bin/env bash
# Usage: bench_json.sh DEMPACT
# `dempact bench` on a tiny bed (a few seconds): the JSON has every promised key with a
# sane value (never a speed check), the bed written with --write-data and read back with
# --load is the same bed (same spheres, same contacts), and bad requests are refused with
# exit status 2 and a clear message. Soft spheres (E = 1e6 Pa) allow a long step, so the
# bed settles in few steps. With DEMPACT_REORDER_MIN=1 the engine would sort even this
# bed at its first rebuild if it were not already in the engine's curve order; the bench
# sorts both beds that way, so neither run sorts ("reorders": 0).
set -u
dempact=$1
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
fail() { echo "FAIL: $*"; exit 1; }
tiny=(--particles 120 --depth 4 --young 1e6 --seed 3)

DEMPACT_REORDER_MIN=1 "$dempact" bench "${tiny[@]}" --steps 20 --threads 2 --format json --quiet \
  --write-data "$work/bed.data" > "$work/built.json" || fail "bench on a built bed: exit $?"
cat "$work/built.json"
DEMPACT_REORDER_MIN=1 "$dempact" bench --load "$work/bed.data" --young 1e6 --steps 5 --threads 1 --format json --quiet \
  > "$work/loaded.json" || fail "bench --load: exit $?"
cat "$work/loaded.json"

python3 - "$work/built.json" "$work/loaded.json" <<'EOF' || exit 1
import json, sys
built, loaded = (json.load(open(p)) for p in sys.argv[1:3])
def check(ok, what):
    if not ok:
        print("FAIL:", what); sys.exit(1)
for r in (built, loaded):
    for key in ("particles", "contacts_per_particle", "particle_steps_per_second",
                "seconds_per_step", "threads", "peak_memory_bytes_per_particle", "steps",
                "wall_seconds", "neighbour_rebuilds", "reorders", "pair_contacts_per_particle",
                "fastest_sphere_start", "fastest_sphere_end", "solid_fraction", "bed", "settings",
                "passes", "listed_pairs_per_particle"):
        check(key in r, "key %s missing" % key)
    check(r["particles"] == 120, "particles = %r" % r["particles"])
    # the passes: each timed stretch of a step goes to one pass, so they cannot add up to
    # more than the bench's own clock (beyond the printed rounding), and they leave out
    # only the bench's loop around sim_step (no speed is checked)
    passes = r["passes"]
    names = ("neighbours", "pairs", "integration", "books")
    for name in names:
        p = passes[name]
        check(p["seconds_per_step"] >= 0 and p["percent"] >= 0, "pass %s: %r" % (name, p))
        check(abs(p["percent"] - 100 * p["seconds_per_step"] / r["seconds_per_step"]) < 0.01 + 1e-3 * p["percent"],
              "pass %s: percent %r is not its seconds over seconds_per_step" % (name, p))
    total = sum(passes[name]["percent"] for name in names)
    # each value is printed to 4 digits: the rounded parts may miss the rounded total by 0.025
    check(abs(total - passes["percent_total"]) < 0.03, "percent_total %r, the passes add to %r" % (passes["percent_total"], total))
    check(80 < total <= 100.01, "the passes add up to %r%% of the step" % total)
    check(passes["pairs"]["seconds_per_step"] > 0, "no time in the pair loop")
    # the pair loop's candidates: every touching pair is one of them
    check(r["listed_pairs_per_particle"] >= r["pair_contacts_per_particle_end"] / 2,
          "listed pairs %r fewer than the touching %r" % (r["listed_pairs_per_particle"], r["pair_contacts_per_particle_end"] / 2))
    check(r["reorders"] == 0, "the engine sorted the bed %r times" % r["reorders"])
    check(r["particle_steps_per_second"] > 0 and r["seconds_per_step"] > 0, "rates not positive")
    check(r["peak_memory_bytes_per_particle"] > 0, "memory not positive")
    # settled: a random packing of frictionless spheres, nothing moving
    check(3.5 < r["contacts_per_particle"] < 7.5, "contacts per particle %r" % r["contacts_per_particle"])
    check(r["fastest_sphere_start"] < 1e-3, "not settled: fastest sphere %r m/s" % r["fastest_sphere_start"])
    check(0.45 < r["solid_fraction"] < 0.66, "solid fraction %r" % r["solid_fraction"])
    for key in ("law", "params", "cohesion_removal", "young", "poisson", "density", "dt", "skin",
                "gravity", "friction"):
        check(key in r["settings"], "settings.%s missing" % key)
check(built["threads"] == 2 and loaded["threads"] == 1, "threads not as asked")
check(built["settings"]["law"] == "hertz_tti" and built["settings"]["params"]["restitution"] == 0.5,
      "default law is not hertz_tti with e = 0.5")
check(built["bed"]["source"] == "built" and built["bed"]["settle_steps"] > 0, "bed not built")
# the file carries the bed exactly: same contacts, same step, same box
check(loaded["contacts_per_particle"] == built["contacts_per_particle"], "contacts differ after --load")
check(loaded["settings"]["dt"] == built["settings"]["dt"], "step differs after --load")
check(loaded["bed"]["box_max"] == built["bed"]["box_max"], "box differs after --load")
print("bench JSON keys and values as promised")
EOF

expect_refusal() { # PATTERN ARGS...
  local pattern=$1; shift
  "$dempact" bench "$@" > /dev/null 2> "$work/err"
  local status=$?
  [ "$status" -eq 2 ] || fail "bench $* exited $status, expected 2"
  grep -Eq -- "$pattern" "$work/err" || fail "bench $*: message '$(cat "$work/err")' lacks /$pattern/"
  echo "refused: $(cat "$work/err")"
}
# the text output names the passes and their sum; --steps 0 times none
"$dempact" bench --load "$work/bed.data" --young 1e6 --steps 5 --quiet > "$work/text.out" || fail "bench text: exit $?"
for pass in neighbours pairs integration books; do
  grep -Eq "^pass $pass +[0-9.e+-]+ s per step, [0-9.]+%$" "$work/text.out" || fail "text output lacks pass $pass: $(cat "$work/text.out")"
done
grep -Eq "^passes in all +[0-9.]+% of the step$" "$work/text.out" || fail "text output lacks the passes' sum"
"$dempact" bench --load "$work/bed.data" --young 1e6 --steps 0 --format json --quiet > "$work/none.json" || fail "bench --steps 0: exit $?"
python3 -c 'import json, sys; r = json.load(open(sys.argv[1])); assert r["passes"] is None, r["passes"]' "$work/none.json" \
  || fail "--steps 0: passes not null"
expect_refusal "friction >= 0" --load "$work/bed.data" --friction -0.5 --steps 1
expect_refusal "rolling, friction >= 0" --load "$work/bed.data" --rolling -0.1 --steps 1
expect_refusal "--passes takes auto, fused or generic" --load "$work/bed.data" --passes vector --steps 1
# the fused and the generic passes say which ran, and hold the bed alike (the same bits:
# tests/test_fused_pass.c)
for passes in fused generic; do
  "$dempact" bench --load "$work/bed.data" --young 1e6 --friction 0.5 --rolling 0.05 --steps 5 \
    --format json --quiet --passes $passes > "$work/$passes.json" || fail "bench --passes $passes: exit $?"
done
python3 - "$work/fused.json" "$work/generic.json" <<'EOF4' || exit 1
import json, sys
fused, generic = (json.load(open(p)) for p in sys.argv[1:3])
for r, name in ((fused, "fused"), (generic, "generic")):
    if r["settings"]["passes"] != name or r["settings"]["rolling"] != 0.05:
        print("FAIL: --passes %s --rolling 0.05 reports" % name, r["settings"]); sys.exit(1)
for key in ("contacts_per_particle_end", "fastest_sphere_end"):
    if fused[key] != generic[key]:
        print("FAIL: %s differs: fused %r, generic %r" % (key, fused[key], generic[key])); sys.exit(1)
print("--passes fused and generic: said, and the same bed at the end")
EOF4
# the Hertz-Mindlin workload runs on the same bed, which stays at rest
"$dempact" bench --load "$work/bed.data" --young 1e6 --friction 0.5 --steps 5 --format json --quiet \
  > "$work/friction.json" || fail "bench --friction 0.5: exit $?"
python3 - "$work/friction.json" <<'EOF2' || exit 1
import json, sys
r = json.load(open(sys.argv[1]))
if r["settings"]["friction"] != 0.5 or not r["fastest_sphere_end"] < 1e-3 or r["particles"] != 120:
    print("FAIL: --friction 0.5 run:", r); sys.exit(1)
print("friction 0.5: runs, the bed stays at rest")
EOF2
# the same workload with the sums in id order: the same bed, at rest, and said so
"$dempact" bench --load "$work/bed.data" --young 1e6 --friction 0.5 --steps 5 --format json --quiet \
  --reproducible on > "$work/by_id.json" || fail "bench --reproducible on: exit $?"
python3 - "$work/friction.json" "$work/by_id.json" <<'EOF3' || exit 1
import json, sys
plain, by_id = (json.load(open(p)) for p in sys.argv[1:3])
if (by_id["settings"]["reproducible"] is not True or plain["settings"]["reproducible"] is not False
        or by_id["contacts_per_particle"] != plain["contacts_per_particle"]
        or not by_id["fastest_sphere_end"] < 1e-3):
    print("FAIL: --reproducible on run:", by_id); sys.exit(1)
print("reproducible on: the same bed, at rest, settings.reproducible true")
EOF3
# --adhesion: the timed steps feel it, the bed does not (the same bed at the start, which
# the plain run keeps at rest and a JKR work of 1 J/m^2, a pull-off 23 times a bead's
# weight, sets moving), and the settings say it (null without)
"$dempact" bench --load "$work/bed.data" --young 1e6 --steps 5 --format json --quiet \
  --adhesion jkr --adhesion-param work=1 > "$work/jkr.json" || fail "bench --adhesion jkr: exit $?"
python3 - "$work/loaded.json" "$work/jkr.json" <<'EOF5' || exit 1
import json, sys
plain, jkr = (json.load(open(p)) for p in sys.argv[1:3])
def check(ok, what):
    if not ok:
        print("FAIL:", what); sys.exit(1)
check(plain["settings"]["adhesion"] is None, "settings.adhesion %r without --adhesion" % plain["settings"].get("adhesion"))
check(jkr["settings"]["adhesion"] == {"model": "jkr", "work": 1.0}, "settings.adhesion %r" % jkr["settings"]["adhesion"])
for key in ("contacts_per_particle", "solid_fraction", "fastest_sphere_start"):
    check(jkr[key] == plain[key], "%s: %r with jkr, %r without: not the same bed" % (key, jkr[key], plain[key]))
check(plain["fastest_sphere_end"] < 1e-3 < jkr["fastest_sphere_end"],
      "fastest sphere at the end %r without, %r with jkr: the adhesion did not act" % (plain["fastest_sphere_end"], jkr["fastest_sphere_end"]))
print("--adhesion jkr: the same bed, set moving, settings.adhesion said")
EOF5
expect_refusal "^dempact bench: --adhesion-param: work=-1: work must be" --load "$work/bed.data" \
  --adhesion jkr --adhesion-param work=-1 --write-data "$work/adh.data"
[ ! -e "$work/adh.data" ] || fail "a refused --adhesion wrote $work/adh.data"
expect_refusal "^dempact bench: --adhesion-param needs --adhesion NAME" --load "$work/bed.data" --adhesion-param work=1
# jkr replaces Hertz's curve: beside linear it is refused before any bed is built or read
# (the whole message is the refusal's one line: no "bed:" line before it)
expect_refusal "^dempact bench: --adhesion jkr: jkr replaces Hertz's force-overlap curve.*law linear's elastic part is linear$" \
  --particles 20000 --law linear --param stiffness=1e5 --dt 1e-6 --adhesion jkr --adhesion-param work=1
[ "$(wc -l < "$work/err")" -eq 1 ] || fail "the refusal of jkr beside linear came after: $(cat "$work/err")"
expect_refusal "--reproducible takes on or off" --load "$work/bed.data" --reproducible maybe
expect_refusal "not both" --load "$work/bed.data" --particles 10
expect_refusal "unknown law" --load "$work/bed.data" --law hertz_ttl
expect_refusal "--format takes text or json" --load "$work/bed.data" --format xml
printf 'title\n\n1 atoms\n1 atom types\n0 1 xlo xhi\n0 1 ylo yhi\n0 1 zlo zhi\n\nAtoms\n\n1 1 0.1 2500 0.5 0.5\n' > "$work/bad.data"
expect_refusal "bad.data:11: an atom line has 6 fields" --load "$work/bad.data"
echo "bench: JSON, --write-data/--load and refusals as promised"
