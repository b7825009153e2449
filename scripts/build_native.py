"""Compiles the engine's hot modules (``engine.native.MODULES``) with mypyc into ``.native/``.

    .venv/bin/python scripts/build_native.py          # no-op when .native/ is current
    .venv/bin/python scripts/build_native.py --force

Run by ``scripts/_bootstrap.sh`` after installing packages, so README's two commands build it.
Needs a C compiler (gcc) and mypy; takes about 30 s on 2 cores. Without them, or on failure, it
prints why and exits 1; the engine then runs the same modules as plain Python (slower).
"""

from __future__ import annotations

import argparse
import os
import shutil
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
os.environ["ENGINE_NATIVE"] = "0"  # this process must not load the build it replaces

from engine import native  # noqa: E402


def build() -> None:
    """Builds into a fresh temporary directory, then swaps it in for ``.native/`` with its stamp
    (so a failed or interrupted build never leaves a half-written ``.native/``)."""
    from mypyc.build import mypycify  # imports setuptools; only the build needs it
    from setuptools import setup

    os.chdir(ROOT)  # mypyc names modules by their paths relative to the working directory
    stamp = native.source_hash()
    scratch = Path(tempfile.mkdtemp(prefix=".native-", dir=ROOT))
    try:
        extensions = mypycify(
            list(native.MODULES), opt_level="3", group_name=native.GROUP,
            target_dir=str(scratch / "c"),
        )  # fmt: skip
        os.chdir(scratch)  # away from pyproject.toml, which setuptools would read too
        setup(
            name=native.GROUP, ext_modules=extensions,
            script_args=["-q", "build_ext", "--build-lib", str(scratch / "lib"),
                         "--build-temp", str(scratch / "obj"), "-j", str(os.cpu_count() or 1)],
        )  # fmt: skip
        (scratch / "lib" / "STAMP").write_text(stamp + "\n", encoding="utf-8")
        shutil.rmtree(native.BUILD_DIR, ignore_errors=True)
        (scratch / "lib").rename(native.BUILD_DIR)
    finally:
        os.chdir(ROOT)
        shutil.rmtree(scratch, ignore_errors=True)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--force", action="store_true", help="rebuild even when current")
    args = parser.parse_args()
    if native.is_current() and not args.force:
        return 0
    if shutil.which(os.environ.get("CC", "gcc")) is None:
        print("build_native: no C compiler (gcc); the engine runs as plain Python", file=sys.stderr)
        return 1
    started = time.perf_counter()
    try:
        build()
    except (Exception, SystemExit) as exc:  # setuptools reports compile errors as SystemExit
        print(f"build_native: FAILED ({exc}); the engine runs as plain Python", file=sys.stderr)
        return 1
    took_s = time.perf_counter() - started
    count = len(native.MODULES)
    print(f"build_native: compiled {count} modules in {took_s:.0f} s", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
