"""The generated worlds and stripped training files in ``benchmarks/data/``
(``python -m benchmarks.generate.NAME --help``)."""
