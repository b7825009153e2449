"""Discrete-event simulation of deep-learning job scheduling on heterogeneous GPU clusters."""

from engine import native

native.activate(__path__, __name__)  # the compiled engine core, when built (engine/native.py)
