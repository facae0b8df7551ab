#!/usr/bin/env bash
# Usage: law_parts.sh DEMPACT CASES_DIR
# A case may name a normal law by its two parts (law: L, or elastic: E with damping: D,
# docs/case-file.md): every law that `dempact laws` says is composed of parts runs a
# binary collision (cases/collision.yaml with the law swapped in, through the contact) named
# both ways, and
# the two outputs must be bit-identical (h5diff, every dataset but the case's own text).
# A law's required parameters come from the table below; a composed law missing from it
# fails the test, so a new law is covered when it is added.
set -eu
dempact=$1 cases=$2
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
cp "$cases/collision_spheres.csv" "$out/"
params_of() { # the parameters a run of law $1 needs
  case $1 in
    hertz) echo "{}" ;;
    hertz_critical_ratio) echo "{xi: 0.2}" ;;
    hertz_kk) echo "{eta: 2.0e4}" ;;
    hertz_lh) echo "{eta: 2.0e4}" ;;
    linear|hertz_tti|hunt_crossley|lankarani_nikravesh|flores|gharib_hurmuzlu|hu_guo| \
    safaeifar_farshidianfar|sheikhi_azqandi_safaeifar|exact|zhang) echo "{restitution: 0.6}" ;;
    *) return 1 ;;
  esac
}
n=0
while read -r law elastic damping; do
  params=$(params_of "$law") || { echo "FAIL: law $law has parts but no parameters here"; exit 1; }
  for form in law parts; do
    if [ $form = law ]; then named="law: $law"; else named="elastic: $elastic\n    damping: $damping"; fi
    sed -e "s/^    law: hertz$/    $named\n    params: $params/" -e "s/^name: collision/name: c/" \
      "$cases/collision.yaml" > "$out/$form.yaml"
    grep -q "params: $params" "$out/$form.yaml" || { echo "FAIL: the template changed"; exit 1; }
    "$dempact" run "$out/$form.yaml" --output "$out/$form" --end-time 6e-4 --threads 1 --quiet
  done
  h5diff --exclude-path /case_text "$out/law/c.h5" "$out/parts/c.h5"
  touching=0
  for f in "$out"/law/c.d/*.h5; do
    h5diff "$f" "$out/parts/c.d/$(basename "$f")"
    h5ls "$f/contacts/overlap" | grep -q "Dataset {0/" || touching=$((touching + 1))
  done
  [ "$touching" -ge 1 ] || { echo "FAIL: $law: no snapshot caught the spheres touching"; exit 1; }
  n=$((n + 1))
  rm -rf "$out/law" "$out/parts"
done < <("$dempact" laws | awk '/^[a-z_]+$/ {law = $1}
  /^  parts: elastic / {print law, $3, $6}')
[ "$n" -ge 15 ] || { echo "FAIL: only $n composed laws listed"; exit 1; }
echo "$n composed laws: named by law or by parts, the same bits"
