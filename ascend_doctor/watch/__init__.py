"""``ascend-doctor watch``: sample ``npu-smi info`` at an interval and alert on state changes.

Pieces, in the order a sample flows through them:

* ``source``     takes one sample through the host abstraction (``LiveHost`` or ``ReplayHost``),
                 in a worker thread so a hung ``npu-smi`` becomes a stale sample, never a hang;
* ``model``      the typed sample (per chip: health, temperature, power, AICore, memory, processes);
* ``leak``       least-squares slope of each process's memory over a window;
* ``alerts``     thresholds -> conditions -> one event per state change (raise / clear);
* ``prometheus`` node_exporter textfile metrics, written atomically;
* ``notify``     the ``--on-alert`` command, run off the sampling loop with a timeout;
* ``output``     plain lines, JSON lines, and the live table (rich, imported lazily);
* ``loop``       the loop tying them together with bounded memory.

See docs/watch.md.
"""
