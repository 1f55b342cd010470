"""OPAL's decorators for Python scripts (docs/python.md).

Under `opal run script.py` a function decorated `@unordered`, `@readonly` or `@sequential` is an
external call: it is dispatched as soon as its argument is ready and the rest of the script goes
on while it runs. Under plain `python3` these decorators run the function where it is called (an
`async def` to completion, an async generator to its list of items), so the same file also runs
unchanged, sequentially, with CPython.
"""

import asyncio
import functools
import inspect

__all__ = ["unordered", "readonly", "sequential"]


def _run_where_called(f):
    if inspect.isasyncgenfunction(f):
        # A streaming external: its items, gathered on an event loop of their own.
        @functools.wraps(f)
        def gather(*args, **kwargs):
            async def items():
                return [x async for x in f(*args, **kwargs)]
            return asyncio.run(items())
        return gather
    if inspect.iscoroutinefunction(f):
        @functools.wraps(f)
        def call(*args, **kwargs):
            return asyncio.run(f(*args, **kwargs))
        return call
    return f


def unordered(f):
    """An external that may run in any order with the other calls (the default class)."""
    return _run_where_called(f)


def readonly(f):
    """An external that only reads: it may overlap other reads, never a write."""
    return _run_where_called(f)


def sequential(f):
    """An external with effects: it runs in program order with the other ordered calls."""
    return _run_where_called(f)
