#!/usr/bin/env bash
# Measures delivery with a real model: every brief of the bank (or the first N) composed
# with `cantus compose --config CONFIG --seed 0`, one TSV row per brief, appended as each
# finishes (so a long run can be read, or resumed with --from, while it goes).
#
#   scripts/measure-delivery.sh [--config examples/config/local.toml] [--out DIR]
#                               [--first N] [--from K] [--bin target/release/cantus]
#
# Columns: index, released, sections, proposer calls, continue requests, replans,
# dropped, tokens in, tokens out, degeneracy (passed/refused/-), extremes, seconds, brief.
# Needs the model server up (scripts/local-model.sh start) and python3 to read report.json.
set -euo pipefail

config="examples/config/local.toml"
out="target/measure-delivery"
first=1000
from=1
bin="target/release/cantus"
bank="examples/briefs/bank.txt"
while [ $# -gt 0 ]; do
    case "$1" in
        --config) config="$2"; shift 2 ;;
        --out) out="$2"; shift 2 ;;
        --first) first="$2"; shift 2 ;;
        --from) from="$2"; shift 2 ;;
        --bin) bin="$2"; shift 2 ;;
        *) echo "measure-delivery: unknown argument $1" >&2; exit 2 ;;
    esac
done
mkdir -p "$out"
tsv="$out/delivery.tsv"
[ "$from" -gt 1 ] || printf 'index\treleased\tsections\tcalls\tcontinues\treplans\tdropped\ttokens_in\ttokens_out\tdegeneracy\textremes\tseconds\tbrief\n' > "$tsv"

i=0
grep -v '^\s*#' "$bank" | grep -v '^\s*$' | while IFS= read -r brief; do
    i=$((i + 1))
    [ "$i" -ge "$from" ] || continue
    [ "$i" -le "$first" ] || break
    run="$out/run-$i"
    start=$(date +%s)
    "$bin" compose --config "$config" --brief "$brief" --seed 0 --out "$run" --force \
        > "$out/run-$i.log" 2>&1 || true
    seconds=$(( $(date +%s) - start ))
    python3 - "$run/report.json" "$i" "$seconds" "$brief" >> "$tsv" <<'PY'
import json, sys
path, i, seconds, brief = sys.argv[1:5]
try:
    r = json.load(open(path))
except Exception:
    print("\t".join([i, "error", "", "", "", "", "", "", "", "-", "", seconds, brief]))
    sys.exit(0)
t = r["totals"]
d = r.get("degeneracy")
deg = "-" if d is None else ("passed" if d["passed"] else "refused")
ext = "" if d is None else str(len(d["extremes"]))
print("\t".join(str(x) for x in [
    i, str(r["released"]).lower(), len(r["schedule"]), t["proposer_calls"],
    t.get("continues", 0), t["replans"], t["dropped"], t.get("tokens_in") or 0,
    t.get("tokens_out") or 0, deg, ext, seconds, brief]))
PY
    tail -1 "$tsv" >&2
done
