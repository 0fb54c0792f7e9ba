#!/usr/bin/env bash
# Installs the external tools the music formats, renderings and reports are checked with:
#   * LilyPond (Debian package `lilypond`): the engraver, used by the LilyPond compile
#     tests and by `cantus render --to svg|png|pdf`;
#   * a General MIDI SoundFont (Debian package `fluid-soundfont-gm`, which installs
#     /usr/share/sounds/sf2/FluidR3_GM.sf2): what `cantus render --audio` plays through;
#   * Chromium and ChromeDriver (Debian packages `chromium`, `chromium-driver`): the
#     real browser the HTML report and blind-package tests open pages in;
#   * a Python venv with music21 (PyPI), used to cross-check MusicXML output.
# Idempotent: each step runs only when its tool is missing, so re-running is cheap.
#
# Environment:
#   CANTUS_VENV   where to create the venv (default: <repo>/.venv-tools)
#   PYTHON        the Python used to create the venv (default: python3)
set -euo pipefail

REPO="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
VENV="${CANTUS_VENV:-$REPO/.venv-tools}"
PYTHON="${PYTHON:-python3}"

log() { printf 'install-music-tools: %s\n' "$*" >&2; }

# --- Debian packages ----------------------------------------------------------
# Each tool is checked by what it installs; the missing ones are installed in one
# apt-get run.
missing=()
command -v lilypond >/dev/null 2>&1 || missing+=(lilypond)
[ -f /usr/share/sounds/sf2/FluidR3_GM.sf2 ] || missing+=(fluid-soundfont-gm)
command -v chromium >/dev/null 2>&1 || missing+=(chromium)
command -v chromedriver >/dev/null 2>&1 || missing+=(chromium-driver)
if [ "${#missing[@]}" -eq 0 ]; then
    log "lilypond present: $(lilypond --version 2>/dev/null | head -n 1)"
    log "SoundFont present: /usr/share/sounds/sf2/FluidR3_GM.sf2"
    log "chromium present: $(chromium --version 2>/dev/null | head -n 1)"
else
    if [ "$(id -u)" -eq 0 ]; then
        AS_ROOT=()
    elif command -v sudo >/dev/null 2>&1; then
        AS_ROOT=(sudo)
    else
        log "error: ${missing[*]} missing and installing needs root (no sudo found)"
        exit 1
    fi
    log "installing the Debian packages: ${missing[*]}"
    export DEBIAN_FRONTEND=noninteractive
    "${AS_ROOT[@]}" apt-get update -qq
    "${AS_ROOT[@]}" apt-get install -y -qq --no-install-recommends "${missing[@]}"
    log "installed: $(lilypond --version 2>/dev/null | head -n 1); $(chromium --version 2>/dev/null | head -n 1)"
fi

# --- music21 venv -------------------------------------------------------------
if [ -x "$VENV/bin/python" ] && "$VENV/bin/python" -c "import music21" >/dev/null 2>&1; then
    log "music21 present in $VENV"
else
    if [ ! -x "$VENV/bin/python" ]; then
        log "creating venv $VENV"
        "$PYTHON" -m venv "$VENV"
    fi
    log "installing music21 into $VENV"
    "$VENV/bin/python" -m pip install --quiet music21==10.5.1
    log "music21 $("$VENV/bin/python" -c 'import music21; print(music21.__version__)') ready in $VENV"
fi
