"""``ascend-doctor watch``: sample ``npu-smi info`` at an interval and alert on state changes.

Pieces, in the order a sample flows through them:

* ``source``     takes one sample through the host abstraction (``LiveHost`` or ``ReplayHost``),
                 in a worker thread so a hung ``npu-smi`` becomes a stale sample, never a hang;
* ``model``      the typed sample (per chip: health, temperature, power, AICore, memory, processes);
* ``leak``       least-squares slope of each process's memory over a window;
* ``alerts``     thresholds -> conditions -> one event per state change (raise / clear);
* ``prometheus`` writes the node_exporter textfile atomically;
* ``notify``     the ``--on-alert`` command, run off the sampling loop with a timeout;
* ``loop``       the loop tying them together with bounded memory.

What is shown is made in ascend_doctor/render/: plain lines, JSON lines, the live table (rich,
imported lazily), the alert line and the ``--on-alert`` payload in render/watch.py, the textfile
metrics in render/prometheus.py.

See docs/watch.md.
"""
