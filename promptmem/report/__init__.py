"""Reporting: the files a run writes, the HTML report, side-by-side comparisons, per-question
stories and the LLM judge over a finished run."""
