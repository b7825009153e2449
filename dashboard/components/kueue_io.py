"""A Kueue YAML in and out of the Teams page (:mod:`engine.quota.kueue_yaml` reads and writes it).

An uploaded YAML is untrusted: at most :data:`MAX_YAML_MB` MB (the uploader refuses more), read
by the engine with its own size and depth limits; a document it refuses is named in one message
under the uploader and the scenario keeps its queues.
"""

from __future__ import annotations

import streamlit as st

from dashboard.components.team_setup import TEAMS_FLASH, set_queues
from dashboard.state import current
from engine.errors import EngineError
from engine.quota.kueue_yaml import read_kueue_yaml, write_kueue_yaml
from engine.quota.model import QueueConfig

MAX_YAML_MB = 1


def _on_upload() -> None:
    s = st.session_state
    file = s.get("kueue_file")
    if file is None:
        return
    text = file.getvalue().decode("utf-8", errors="replace")
    try:
        queues, notes = read_kueue_yaml(text, list(current().cluster.capacity()), file=file.name)
    except EngineError as exc:
        s[TEAMS_FLASH] = ("error", f"{file.name}: {exc}")
        return
    set_queues(queues)
    message = f"Loaded {len(queues.cluster_queues)} ClusterQueues from {file.name}."
    s[TEAMS_FLASH] = ("success", " ".join([message, *notes]))


def render_kueue_io(queues: QueueConfig) -> None:
    """Upload a Kueue YAML (replacing the queues); download the queues as one."""
    left, right = st.columns(2)
    left.file_uploader(
        "Load a Kueue YAML", type=["yaml", "yml"], key="kueue_file", on_change=_on_upload,
        max_upload_size=MAX_YAML_MB,
        help="ResourceFlavors, ClusterQueues, Cohorts, LocalQueues and WorkloadPriorityClasses "
        "(kueue.x-k8s.io); its ResourceFlavors stand for the cluster's GPU types "
        "(engine/quota/kueue_yaml.py). Replaces the tables below.",
    )  # fmt: skip
    try:
        text = write_kueue_yaml(queues)
    except EngineError as exc:
        right.error(str(exc))
        return
    right.download_button(
        "Download Kueue YAML", text, file_name="kueue.yaml", mime="application/yaml",
        icon=":material/download:", help="Apply it to a cluster with kubectl, or load it again.",
    )  # fmt: skip
