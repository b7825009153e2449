# shellcheck shell=bash
# Shared helper, sourced by scripts/dashboard.sh and scripts/test.sh.
#
#   source "$(dirname "${BASH_SOURCE[0]}")/_bootstrap.sh"
#   bootstrap_venv test     # or: bootstrap_venv base
#
# Sourcing it cd's to the repository root (found from this file's own location,
# so the calling cwd does not matter) and sets REPO_ROOT and VENV.
# bootstrap_venv creates .venv with the machine's Python (>= 3.11) when it is
# missing or broken, and runs `pip install -e .` / `pip install -e ".[test]"`
# only when pyproject.toml changed since the last successful install (a sha256
# of it is stored in .venv/.gpusched-bootstrap). pip's output goes to a log
# that is printed only on failure. Then scripts/build_native.py compiles the
# engine core with mypyc when its sources changed (see engine/native.py).

REPO_ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
VENV="$REPO_ROOT/.venv"
cd "$REPO_ROOT" || return 1 2>/dev/null || exit 1

_bs_log() { printf 'bootstrap: %s\n' "$*" >&2; }

# Pick a Python >= 3.11: $PYTHON if set, then python3.11 / python3 on PATH,
# then pyenv's install location (CI may run with a reduced PATH).
_bs_find_python() {
    local cand
    for cand in ${PYTHON:-} python3.11 python3 /root/.pyenv/versions/3.11*/bin/python3 /usr/bin/python3; do
        [ -n "$cand" ] || continue
        command -v "$cand" >/dev/null 2>&1 || continue
        if "$cand" -c 'import sys, venv; sys.exit(0 if sys.version_info >= (3, 11) else 1)' >/dev/null 2>&1; then
            command -v "$cand"
            return 0
        fi
    done
    return 1
}

_bs_hash() {
    if command -v sha256sum >/dev/null 2>&1; then
        sha256sum "$1" | cut -d' ' -f1
    else
        "$VENV/bin/python" -c 'import hashlib,sys; print(hashlib.sha256(open(sys.argv[1],"rb").read()).hexdigest())' "$1"
    fi
}

# bootstrap_venv [base|test]
bootstrap_venv() {
    local mode="${1:-base}"
    local stamp="$VENV/.gpusched-bootstrap"
    local lockfd

    # Serialise concurrent bootstraps of the same checkout (two scripts started at once).
    if command -v flock >/dev/null 2>&1; then
        local lock="${TMPDIR:-/tmp}/gpusched-bootstrap-$(printf '%s' "$REPO_ROOT" | cksum | cut -d' ' -f1).lock"
        exec {lockfd}>"$lock" && flock "$lockfd"
    fi

    # 1. The venv itself.
    if ! "$VENV/bin/python" -c 'import sys' >/dev/null 2>&1; then
        local py
        if ! py="$(_bs_find_python)"; then
            _bs_log "ERROR: no Python >= 3.11 found (tried \$PYTHON, python3.11, python3, pyenv)"
            [ -n "${lockfd:-}" ] && exec {lockfd}>&-
            return 1
        fi
        [ -e "$VENV" ] && { _bs_log "removing broken $VENV"; rm -rf "$VENV"; }
        _bs_log "creating $VENV with $py ($("$py" --version 2>&1))"
        if ! "$py" -m venv "$VENV"; then
            _bs_log "ERROR: '$py -m venv $VENV' failed"
            [ -n "${lockfd:-}" ] && exec {lockfd}>&-
            return 1
        fi
    fi

    # 2. The packages, only when pyproject.toml changed or the install looks incomplete.
    local want_hash have_hash="" have_mode="" spec modules
    want_hash="$(_bs_hash "$REPO_ROOT/pyproject.toml")"
    if [ -f "$stamp" ]; then
        read -r have_hash have_mode <"$stamp" || true
    fi
    if [ "$mode" = test ]; then
        spec=".[test]"
        modules="engine streamlit pandas pytest hypothesis playwright"
    else
        spec="."
        modules="engine streamlit pandas"
    fi

    local need=1
    if [ "$have_hash" = "$want_hash" ] && { [ "$have_mode" = test ] || [ "$have_mode" = "$mode" ]; }; then
        # Cheap sanity check (find_spec does not import anything heavy).
        if "$VENV/bin/python" -c '
import importlib.util, sys
missing = [m for m in sys.argv[1:] if importlib.util.find_spec(m) is None]
sys.exit(1 if missing else 0)' $modules >/dev/null 2>&1; then
            need=0
        fi
    fi

    if [ "$need" = 1 ]; then
        local log
        log="$(mktemp "${TMPDIR:-/tmp}/gpusched-pip.XXXXXX")"
        _bs_log "installing -e \"$spec\" into .venv (pip output: $log) ..."
        if PIP_DISABLE_PIP_VERSION_CHECK=1 "$VENV/bin/python" -m pip install --no-input -e "$spec" >"$log" 2>&1; then
            # Keep the more complete mode: a base install on top of a test install leaves test deps in place.
            if [ "$mode" = base ] && [ "$have_mode" = test ] && [ "$have_hash" = "$want_hash" ]; then
                mode=test
            fi
            printf '%s %s\n' "$want_hash" "$mode" >"$stamp"
            rm -f "$log"
            _bs_log "install done"
        else
            local rc=$?
            _bs_log "ERROR: pip install -e \"$spec\" failed (exit $rc); last lines of $log:"
            tail -n 40 "$log" >&2
            rm -f "$stamp"
            [ -n "${lockfd:-}" ] && exec {lockfd}>&-
            return 1
        fi
    fi

    # 3. The compiled engine core (engine/native.py), rebuilt only when its sources changed.
    if ! "$VENV/bin/python" "$REPO_ROOT/scripts/build_native.py"; then
        _bs_log "WARNING: the engine core is not compiled; it runs as plain Python (slower)"
    fi

    [ -n "${lockfd:-}" ] && exec {lockfd}>&-
    return 0
}
