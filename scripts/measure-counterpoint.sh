#!/usr/bin/env bash
# Measures counterpoint with a real model: Fux's six cantus firmi × above/below ×
# species 1 and 2, each composed with `cantus compose --domain counterpoint --config
# CONFIG --seed 0`, one TSV row per exercise appended as each finishes.
#
#   scripts/measure-counterpoint.sh [--config examples/config/local.toml] [--out DIR]
#                                   [--bin target/release/cantus] [--species "1 2"]
#                                   [--modes "dorian phrygian ..."]
#
# --species limits the run to the species listed (e.g. "2": run it beside a species-1
# run, so both are measured when time is short); --modes likewise limits the cantus firmi.
#
# Columns: mode, position, species, released, bars, proposer calls, continue requests,
# replans, dropped, tokens in, tokens out, seconds.
set -euo pipefail

config="examples/config/local.toml"
out="target/measure-counterpoint"
bin="target/release/cantus"
species_list="1 2"
modes="dorian phrygian lydian mixolydian aeolian ionian"
while [ $# -gt 0 ]; do
    case "$1" in
        --config) config="$2"; shift 2 ;;
        --out) out="$2"; shift 2 ;;
        --bin) bin="$2"; shift 2 ;;
        --species) species_list="$2"; shift 2 ;;
        --modes) modes="$2"; shift 2 ;;
        *) echo "measure-counterpoint: unknown argument $1" >&2; exit 2 ;;
    esac
done
mkdir -p "$out"
tsv="$out/counterpoint.tsv"
printf 'mode\tposition\tspecies\treleased\tbars\tcalls\tcontinues\treplans\tdropped\ttokens_in\ttokens_out\tseconds\n' > "$tsv"
for species in $species_list; do
    for mode in $modes; do
        for position in above below; do
            run="$out/$mode-$position-$species"
            start=$(date +%s)
            "$bin" compose --domain counterpoint --cantus "$mode" --species "$species" "--$position" \
                --config "$config" --seed 0 --out "$run" --force > "$run.log" 2>&1 || true
            seconds=$(( $(date +%s) - start ))
            python3 - "$run/report.json" "$mode" "$position" "$species" "$seconds" >> "$tsv" <<'PY'
import json, sys
path, mode, position, species, seconds = sys.argv[1:6]
try:
    r = json.load(open(path))
except Exception:
    print("\t".join([mode, position, species, "error", "", "", "", "", "", "", "", seconds]))
    sys.exit(0)
t = r["totals"]
print("\t".join(str(x) for x in [
    mode, position, species, str(r["released"]).lower(), len(r["cantus"]["notes"]),
    t["proposer_calls"], t.get("continues", 0), t["replans"], t["dropped"],
    t.get("tokens_in") or 0, t.get("tokens_out") or 0, seconds]))
PY
            tail -1 "$tsv" >&2
        done
    done
done
