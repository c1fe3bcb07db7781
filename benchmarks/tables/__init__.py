"""The result tables of README.md and docs/*.md, rendered from benchmarks/results/*.json.

Each table sits in a page between ``<!-- results:NAME -->`` and ``<!-- /results -->``;
``python -m benchmarks.tables`` rewrites those blocks from the results files, and
``tests/meta/test_readme_tables.py`` fails when a block and its file disagree.

    python -m benchmarks.tables            # rewrite the pages' tables
    python -m benchmarks.tables --check    # exit 1 if any table is out of date
"""
