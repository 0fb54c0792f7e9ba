#!/bin/bash
# Queues a sweep on Slurm: SHARDS array tasks, then the merge once all succeeded.
#   EXPERIMENT=$PWD/../sweep.toml SWEEP_DIR=/shared/sweep SHARDS=8 ./submit.sh
set -euo pipefail
: "${EXPERIMENT:?set EXPERIMENT to the experiment file}"
: "${SWEEP_DIR:?set SWEEP_DIR to the shared output directory}"
SHARDS="${SHARDS:-8}"
here="$(cd "$(dirname "$0")" && pwd)"
mkdir -p "$SWEEP_DIR"

array=$(sbatch --parsable --array="0-$((SHARDS - 1))" \
    --export="ALL,EXPERIMENT=$EXPERIMENT,SWEEP_DIR=$SWEEP_DIR" "$here/shard.sbatch")
sbatch --parsable --dependency="afterok:$array" \
    --export="ALL,SWEEP_DIR=$SWEEP_DIR" "$here/merge.sbatch"
echo "queued shards as job $array and the merge after it"
