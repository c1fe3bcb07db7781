"""Checks of the repository rather than the library: layout and layers, packaging, install,
docs, notebooks, README tables, kills, signatures. Marked `meta` by tests/conftest.py (the whole
folder): `python -m pytest -m "not meta"` leaves them out."""
