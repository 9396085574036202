"""One self-contained HTML page of a command's result (``--html FILE``): :mod:`page` holds the page
(the tables the command printed, its figures as inline SVG, the formulas behind them) and writes it
with inline CSS, no script and no external resource. Imported only when a page is asked for."""
