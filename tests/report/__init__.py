"""promptmem.report: the run story, the HTML report, the terminal summary."""
