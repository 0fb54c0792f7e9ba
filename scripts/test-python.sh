#!/usr/bin/env bash
# Builds the Python package (bindings/python: the wheel `cantus-music`, imported as
# `cantus`) and runs its tests and the notebook-style example, as `scripts/test.sh`
# does after the Rust tests.
#
#   1. a venv (default: <repo>/.venv-tools, the one scripts/install-music-tools.sh makes
#      for music21) gets maturin, pytest, pandas, matplotlib and music21 from PyPI —
#      each only when missing, so a second run installs nothing;
#   2. `maturin build --release` builds the abi3 wheel into bindings/python/dist/
#      (cargo rebuilds only what changed) and pip installs it into the venv;
#   3. pytest runs bindings/python/tests, then examples/python/notebook.py runs.
#
# Where the venv cannot be made or filled (no Python, no PyPI), the tests say SKIPPED,
# unless CANTUS_REQUIRE_TOOLS=1 (CI sets it), which makes that a failure.
# Extra arguments go to pytest. Environment:
#   CANTUS_VENV   the venv (default: <repo>/.venv-tools)
#   PYTHON        the Python that makes it (default: python3)
set -euo pipefail
REPO="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
VENV="${CANTUS_VENV:-$REPO/.venv-tools}"
PYTHON="${PYTHON:-python3}"
BINDINGS="$REPO/bindings/python"

log() { printf 'test-python: %s\n' "$*" >&2; }

skip_or_fail() {
    if [ "${CANTUS_REQUIRE_TOOLS:-}" = "1" ]; then
        log "error: $* (CANTUS_REQUIRE_TOOLS=1)"
        exit 1
    fi
    echo "SKIPPED: Python package tests: $*"
    exit 0
}

# Pinned so a run is reproducible; music21 as scripts/install-music-tools.sh pins it.
PACKAGES=(maturin==1.16.0 pytest==9.2.0 pandas==3.1.1 matplotlib==3.11.2 music21==10.5.1)

if [ ! -x "$VENV/bin/python" ]; then
    log "creating venv $VENV"
    "$PYTHON" -m venv "$VENV" || skip_or_fail "cannot create a venv with $PYTHON"
fi
missing=()
for spec in "${PACKAGES[@]}"; do
    name="${spec%%==*}"
    want="${spec##*==}"
    have="$("$VENV/bin/python" -c "import importlib.metadata as m; print(m.version('$name'))" 2>/dev/null || true)"
    [ "$have" = "$want" ] || missing+=("$spec")
done
if [ "${#missing[@]}" -gt 0 ]; then
    log "installing into $VENV: ${missing[*]}"
    "$VENV/bin/python" -m pip install --quiet "${missing[@]}" || skip_or_fail "cannot install ${missing[*]} from PyPI"
fi

# One command builds the wheel (README): maturin build --release in bindings/python.
# The repository's target/ is shared, so the library crates are not built twice.
export CARGO_TARGET_DIR="${CARGO_TARGET_DIR:-$REPO/target}"
rm -rf "$BINDINGS/dist"
(cd "$BINDINGS" && "$VENV/bin/maturin" build --release --quiet --out dist)
wheel="$(ls "$BINDINGS"/dist/cantus_music-*.whl)"
log "built $(basename "$wheel")"
"$VENV/bin/python" -m pip install --quiet --force-reinstall --no-deps "$wheel"

cd "$REPO"
"$VENV/bin/python" -m pytest -q "$BINDINGS/tests" "$@"
log "examples/python/notebook.py"
MPLBACKEND=Agg "$VENV/bin/python" examples/python/notebook.py --out "$CARGO_TARGET_DIR/python-example"
