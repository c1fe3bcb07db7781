"""Reporting: the files a run writes, the HTML report, a comparison's table and plot, and
per-question stories. What runs an LM lives beside ``evaluate``: ``promptmem.comparison``
(several runs side by side) and ``promptmem.judgments`` (the LLM judge over a finished run)."""
