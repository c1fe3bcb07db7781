"""Stages take a context, not many arguments: no function or method of the library (promptmem/,
distill/, programs/) takes more than ``MOST`` parameters. ``self``/``cls`` do not count; keyword-only
parameters, ``*args`` and ``**kwargs`` do. What many settings a stage needs travels in one
dataclass (``signals.pipeline.Pipeline``, ``signals.role_rewards.RewardSettings``,
``distill.run.DistillRun``).

Exempt: typer command functions (``@app.command`` in promptmem/cli*.py), where each parameter
is one command-line option, and the overrides in ``FRAMEWORK_SIGNATURES``, whose parameters a
framework's base class fixes."""

import ast

from tests.helpers.paths import ROOT

PACKAGES = ("promptmem", "distill", "programs")
MOST = 8
FRAMEWORK_SIGNATURES = {
    # verifiers.v1.Harness.resume(ctx, trace, runtime, endpoint, secret, mcp_urls, data, messages, ...)
    ("promptmem/integrations/verifiers_env.py", "PolicyChat.resume"),
}


def _count(args: ast.arguments) -> int:
    names = [a.arg for a in (*args.posonlyargs, *args.args, *args.kwonlyargs)]
    if names and names[0] in ("self", "cls"):
        names = names[1:]
    return len(names) + (args.vararg is not None) + (args.kwarg is not None)


def _is_cli_command(path: str, node: ast.AST) -> bool:
    if not path.startswith("promptmem/cli"):
        return False
    decorators = getattr(node, "decorator_list", [])
    return any(
        isinstance(d, ast.Call) and isinstance(d.func, ast.Attribute) and d.func.attr == "command" for d in decorators
    )


def _functions(tree: ast.AST, prefix: str = ""):
    """(qualified name, node) of every function, method and lambda under ``tree``."""
    for node in ast.iter_child_nodes(tree):
        if isinstance(node, ast.ClassDef):
            yield from _functions(node, f"{prefix}{node.name}.")
        elif isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            yield f"{prefix}{node.name}", node
            yield from _functions(node, f"{prefix}{node.name}.")
        elif isinstance(node, ast.Lambda):
            yield f"{prefix}<lambda>", node
            yield from _functions(node, prefix)
        else:
            yield from _functions(node, prefix)


def too_many(source: str, path: str) -> list[str]:
    """The functions of ``source`` (a file at ``path``) with more than ``MOST`` parameters."""
    found = []
    for name, node in _functions(ast.parse(source)):
        count = _count(node.args)
        if count > MOST and not _is_cli_command(path, node) and (path, name) not in FRAMEWORK_SIGNATURES:
            found.append(f"{path}:{node.lineno} {name} takes {count} parameters")
    return found


def test_no_library_function_takes_more_than_eight_parameters():
    files = sorted(p for package in PACKAGES for p in (ROOT / package).rglob("*.py"))
    assert len(files) > 50
    offenders = [
        line for p in files for line in too_many(p.read_text(encoding="utf-8"), p.relative_to(ROOT).as_posix())
    ]
    assert not offenders, "pass a context dataclass instead:\n" + "\n".join(offenders)


def test_the_check_counts_keyword_only_and_star_parameters_and_not_self():
    source = (
        "def f(a, b, c, d, e, f, g, *, h, i): pass\n"
        "def g(a, b, c, d, e, f, g, *args, **kwargs): pass\n"
        "class C:\n    def m(self, a, b, c, d, e, f, g, h): pass\n"
        "h = lambda a, b, c, d, e, f, g, h, i: 0\n"
    )
    assert [line.split()[1] for line in too_many(source, "x.py")] == ["f", "g", "<lambda>"]
    command = "@app.command()\ndef run(a, b, c, d, e, f, g, h, i): pass\n"
    assert too_many(command, "promptmem/cli.py") == [] and len(too_many(command, "promptmem/other.py")) == 1
