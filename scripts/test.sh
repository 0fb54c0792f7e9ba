#!/usr/bin/env bash
# Runs every test of the workspace. This is the README's test command and what CI runs.
#
# Shared reference data (../shared beside the repository) is used when present:
# set CANTUS_SHARED to point elsewhere. Corpus-wide tests say "SKIPPED" when it is
# missing, unless CANTUS_REQUIRE_SHARED=1 (CI sets it), which makes them fail.
set -euo pipefail
repo="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$repo"
if [ -z "${CANTUS_SHARED:-}" ] && [ -d "$repo/../shared" ]; then
    export CANTUS_SHARED="$(cd "$repo/../shared" && pwd)"
fi
if [ -n "${CANTUS_SHARED:-}" ]; then
    echo "shared data: $CANTUS_SHARED"
else
    echo "shared data: not found (corpus-wide tests will say SKIPPED)"
fi
cargo test --workspace --no-fail-fast "$@"
