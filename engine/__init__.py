"""Discrete-event simulation of deep-learning job scheduling on heterogeneous GPU clusters."""
