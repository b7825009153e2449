"""Power and energy of a run: facility power over time, energy, peak and mean power, CO2e.

A layer over the result tables, off unless a scenario carries ``"power"``
(:class:`engine.power.model.PowerSpec`). Each worker type has three figures, read from
``engine/data/power_figures.csv`` with their sources (vendor data sheets; the DGX system data
sheets for a node's other power) and overridable in the spec: a GPU's power at full load and
idle, and a node's power besides its GPUs (CPUs, memory, fans, NICs). The rule
(:mod:`engine.power.energy`): a GPU held by a job draws its full-load figure times
``busy_power_factor``, an idle GPU its idle figure, a node its other power all the time, and the
facility ``pue`` times all of it. With no power spec every result is identical to a run without
this package.
"""
