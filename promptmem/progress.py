"""The progress bar of long runs: what runs, tasks done of total, time elapsed and left."""

from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn, TimeRemainingColumn


def task_bar(show: bool = True) -> Progress:
    """A rich ``Progress`` (use as a context manager); ``show=False`` renders nothing."""
    return Progress(
        TextColumn("{task.description}"),
        BarColumn(),
        MofNCompleteColumn(),
        TimeElapsedColumn(),
        TimeRemainingColumn(),
        disable=not show,
    )
