"""Figures of what the commands print (``--plot FILE``), drawn with matplotlib (the optional ``plot``
extra) on its non-interactive Agg backend: :mod:`figure` (the target, units, saving), :mod:`search`
(the kept plans and their front), :mod:`roofline` (operators on the device's roofline, time and
memory breakdowns), :mod:`collective` (a size sweep), :mod:`tts` (test-time cost against samples and
length). Every function takes what its command already computed; matplotlib is imported only here,
only when a figure is asked for."""
