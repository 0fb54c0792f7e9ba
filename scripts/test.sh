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
# A real small model (llama.cpp's server with SmolLM2-135M, built once into ~/.cache/cantus)
# serves the tests of the OpenAI-compatible path and of the LLM proposers. Set
# CANTUS_LOCAL_MODEL_URL to use a server you already run; CANTUS_SKIP_MODEL=1 skips it (those
# tests then say SKIPPED), unless CANTUS_REQUIRE_MODEL=1 (CI sets it).
if [ -z "${CANTUS_LOCAL_MODEL_URL:-}" ] && [ "${CANTUS_SKIP_MODEL:-}" != "1" ]; then
    if url="$(./scripts/local-model.sh start)"; then
        export CANTUS_LOCAL_MODEL_URL="$url"
        trap './scripts/local-model.sh stop' EXIT
        echo "local model: $url"
    elif [ "${CANTUS_REQUIRE_MODEL:-}" = "1" ]; then
        echo "error: the local model is required (CANTUS_REQUIRE_MODEL=1) but could not be started" >&2
        exit 1
    else
        echo "local model: not available (real-model tests will say SKIPPED)"
    fi
fi
# Property tests run with one fixed seed so a run is reproducible; set
# PROPTEST_RNG_SEED to explore others (a failure prints its minimal input).
export PROPTEST_RNG_SEED="${PROPTEST_RNG_SEED:-20261130}"
cargo test --workspace --no-fail-fast "$@"
# The Python package (bindings/python): its wheel built, its pytest suite and the
# notebook example run (scripts/test-python.sh; SKIPPED where no venv can be made,
# unless CANTUS_REQUIRE_TOOLS=1). CANTUS_SKIP_PYTHON=1 leaves it out.
if [ "${CANTUS_SKIP_PYTHON:-}" != "1" ]; then
    ./scripts/test-python.sh
fi
