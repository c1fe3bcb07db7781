"""The README's first command, as a new user runs it: a fresh clone of HEAD, a fresh virtual
environment and empty caches; the install and the run timed apart.

    python -m benchmarks.system.first_command            # -> benchmarks/results/first_command.json

The command is read from the README (the first ``bash`` block under "Set up and run") and split
at its `` && `` into the install and the run. The result keeps both times, the run's report
(``report.json`` of its ``--out``) and the machine.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import re
import subprocess
import tempfile
import time
from pathlib import Path

from benchmarks import ROOT
from promptmem.files import write_json


def first_command(readme: Path) -> str:
    """The first ``bash`` block after the README's "Set up and run" heading, as one line."""
    text = readme.read_text(encoding="utf-8")
    section = text[text.index("## Set up and run") :]
    return re.search(r"```bash\n(.*?)\n```", section, re.S).group(1).strip()


def timed(command: str, cwd: Path, env: dict) -> float:
    """Run ``command`` with bash in ``cwd``, raising on failure; its wall seconds."""
    started = time.monotonic()
    subprocess.run(["bash", "-c", command], cwd=cwd, env=env, check=True)
    return round(time.monotonic() - started, 1)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", default="benchmarks/results/first_command.json")
    args = parser.parse_args()
    command = first_command(ROOT / "README.md")
    install, run = command.split(" && ")
    run_dir = re.search(r"--out (\S+)", run).group(1)
    with tempfile.TemporaryDirectory(prefix="promptmem-first-") as tmp:
        tmp = Path(tmp)
        checkout = tmp / "promptmem"
        subprocess.run(["git", "clone", "-q", str(ROOT), str(checkout)], check=True)
        subprocess.run(["python3", "-m", "venv", str(tmp / "venv")], check=True)
        caches = {name: str(tmp / "cache" / name) for name in ("PIP_CACHE_DIR", "PROMPTMEM_CACHE", "HF_HOME")}
        env = {**os.environ, **caches, "PATH": f"{tmp / 'venv' / 'bin'}:{os.environ['PATH']}"}
        env.pop("VIRTUAL_ENV", None)
        seconds = {"install": timed(install, checkout, env), "run": timed(run, checkout, env)}
        report = json.loads((checkout / run_dir / "report.json").read_text(encoding="utf-8"))
    head = subprocess.run(["git", "rev-parse", "--short", "HEAD"], cwd=ROOT, capture_output=True, text=True)
    write_json(
        Path(args.out),
        {
            "benchmark": "first_command",
            "command": command,
            "commit": head.stdout.strip(),
            "seconds": seconds,
            "cpus": os.cpu_count(),
            "python": platform.python_version(),
            "report": report,
        },
    )
    print(json.dumps(seconds))


if __name__ == "__main__":
    main()
