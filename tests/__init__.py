"""promptmem's tests: a folder per package of the library, helpers/ for what they share, meta/
for the checks of the repository itself (marked `meta`: `python -m pytest -m "not meta"` runs the
unit tests alone)."""
