#!/usr/bin/env bash
# Run the whole test suite: creates .venv / installs the [test] extras when
# missing, installs Debian's chromium for the browser tests when missing, then
# runs pytest from the repo root. Arguments are passed on to pytest.
# Exit code is pytest's; "no tests collected" (5) is reported as a failure.
set -euo pipefail
# shellcheck source=scripts/_bootstrap.sh
source "$(dirname "${BASH_SOURCE[0]}")/_bootstrap.sh"   # cd's to the repo root
bootstrap_venv test

CHROMIUM=/usr/bin/chromium
if [ ! -x "$CHROMIUM" ]; then
    echo "test.sh: $CHROMIUM missing; installing Debian's chromium for the e2e tests ..." >&2
    SUDO=""
    if [ "$(id -u)" != 0 ]; then
        if command -v sudo >/dev/null 2>&1; then SUDO="sudo -n"; else SUDO="unavailable"; fi
    fi
    if [ "$SUDO" = unavailable ]; then
        echo "test.sh: WARNING: not root and no sudo; cannot install chromium (browser tests will fail)" >&2
    else
        export DEBIAN_FRONTEND=noninteractive
        apt_log="$(mktemp "${TMPDIR:-/tmp}/gpusched-apt.XXXXXX")"
        if $SUDO apt-get update >"$apt_log" 2>&1 \
           && $SUDO apt-get install -y chromium >>"$apt_log" 2>&1; then
            echo "test.sh: installed $("$CHROMIUM" --version 2>/dev/null || echo chromium)" >&2
            rm -f "$apt_log"
        else
            echo "test.sh: WARNING: installing chromium failed (browser tests will fail); last lines of $apt_log:" >&2
            tail -n 20 "$apt_log" >&2
        fi
    fi
fi
export PLAYWRIGHT_CHROMIUM_EXECUTABLE="$CHROMIUM"

rc=0
"$VENV/bin/python" -m pytest "$@" || rc=$?
if [ "$rc" = 5 ]; then
    echo "test.sh: FAILURE: pytest collected no tests (exit code 5); a test run must run tests." >&2
fi
exit "$rc"
