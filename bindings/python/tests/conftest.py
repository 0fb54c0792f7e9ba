"""Shared paths and helpers of the Python package's tests.

Every test reads fixtures shipped in the repository (never ../shared, never the
network). The CLI, where a test compares against it, is the binary `cargo test`
built (target/debug/cantus) or CANTUS_BIN.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
from pathlib import Path
from typing import Any, Optional

import pytest

REPO = Path(__file__).resolve().parents[3]
MUSIC = REPO / "domains" / "music" / "tests" / "fixtures"
WEBERN = REPO / "domains" / "twelve-tone" / "tests" / "fixtures" / "webern_op21" / "symphonie_i_bars_1-25.txt"
COUNTERPOINT = REPO / "domains" / "counterpoint" / "tests" / "fixtures"
FUZZ = REPO / "fuzz" / "corpus"
EXPERIMENT = REPO / "examples" / "python" / "data" / "experiment"
SPEC = REPO / "examples" / "specs" / "webern-trio.toml"


def cli() -> Optional[Path]:
    """The cantus binary to compare with, if one was built."""
    given = os.environ.get("CANTUS_BIN")
    if given:
        return Path(given)
    target = Path(os.environ.get("CARGO_TARGET_DIR", REPO / "target"))
    built = [p for p in (target / "debug" / "cantus", target / "release" / "cantus") if p.exists()]
    if built:
        # The one built last: `cargo test` builds the debug binary of this checkout.
        return max(built, key=lambda p: p.stat().st_mtime)
    found = shutil.which("cantus")
    return Path(found) if found else None


def cli_json(*args: str) -> Any:
    """What `cantus ARGS --json` prints, parsed; skips the test without a binary."""
    binary = cli()
    if binary is None:
        pytest.skip("SKIPPED: no cantus binary built (cargo build) to compare with")
    done = subprocess.run([str(binary), *args, "--json"], capture_output=True, text=True, timeout=600)
    assert done.returncode in (0, 1), done.stderr
    return json.loads(done.stdout)
