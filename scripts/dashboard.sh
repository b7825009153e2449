#!/usr/bin/env bash
# Start the what-if dashboard at http://localhost:8501 (the app preloads
# sample_traces/philly_2000.csv). Creates .venv and installs what is missing.
# Extra arguments are passed on to `streamlit run` (e.g. --server.port 8502).
set -euo pipefail
# shellcheck source=scripts/_bootstrap.sh
source "$(dirname "${BASH_SOURCE[0]}")/_bootstrap.sh"   # cd's to the repo root
bootstrap_venv base

echo "Dashboard: http://localhost:8501  (Ctrl-C to stop)" >&2
exec "$VENV/bin/streamlit" run dashboard/app.py \
    --server.port 8501 --server.address localhost --server.headless true "$@"
