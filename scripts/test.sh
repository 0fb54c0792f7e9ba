#!/usr/bin/env bash
# Runs every test of the workspace. This is the README's test command and what CI runs.
#
# Shared reference data (../shared beside the repository) is used when present:
# set CANTUS_SHARED to point elsewhere. Corpus-wide tests say "SKIPPED" when it is
# missing, unless CANTUS_REQUIRE_SHARED=1 (CI sets it), which makes them fail.
# Extra arguments go to `cargo test`.
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
# LilyPond and music21 check our output as musicians' tools would read it. The
# script installs them (Debian package, PyPI venv); where it cannot (no root), those
# checks say SKIPPED — unless CANTUS_REQUIRE_TOOLS=1 (CI sets it).
if ! ./scripts/install-music-tools.sh; then
    if [ "${CANTUS_REQUIRE_TOOLS:-}" = "1" ]; then
        echo "error: the music tools are required (CANTUS_REQUIRE_TOOLS=1) but could not be installed" >&2
        exit 1
    fi
    echo "music tools not installed: LilyPond and music21 checks will say SKIPPED"
fi
# Property tests run with one fixed seed so a run is reproducible; set
# PROPTEST_RNG_SEED to explore others (a failure prints its minimal input).
export PROPTEST_RNG_SEED="${PROPTEST_RNG_SEED:-20261130}"
cargo test --workspace --no-fail-fast "$@"
