"""The fault harness: ``python -m benchmarks.faults`` kills runs, fails the LM server and feeds
the command line adversarial and careless inputs (``cases``, ``careless``, on the harness of
``bench``); ``python -m benchmarks.faults.hostile`` plants attacks on the writer in observations."""
