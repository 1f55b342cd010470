"""OPAL's CPython worker: runs a Python script's external functions for `opal run script.py`.

`opal` starts one worker per run: `python3 -c <this file> script.py`. The worker loads the
script's imports, classes, functions and the module-level constants its functions read (not
its internal code, which OPAL runs), then answers requests, one JSON object per line:

  stdin  {"id": 1, "fn": "summarize", "arg": ...}
         {"id": 2, "fn": "json.loads", "arg": {"$tuple": [[positional...], {"$dict": [keywords]}]}}
         {"id": 3, "fn": "py.method", "arg": {"$tuple": [object, "name", [positional...], {...}]}}
         {"id": 4, "fn": "py.getattr", "arg": {"$tuple": [object, "name"]}}
  stdout {"id": 1, "ok": ...} | {"id": 1, "item": ...} | {"id": 1, "end": true}
         {"id": 1, "err": "script.py:12: ValueError: bad input", "classes": [...]}
         {"out": "text", "to": "stdout"}   what an external printed
         {"ready": true} | {"fatal": "..."} once, after loading the script

Async externals run concurrently on one asyncio loop, the others on a thread pool. Data crosses
as JSON: a tuple is {"$tuple": [...]}, a dict {"$dict": [[k, v], ...]}, a float JSON cannot
spell {"$float": "inf"}, and any other object stays here as {"$handle": n} (docs/python.md).
"""

import ast
import asyncio
import concurrent.futures
import importlib
import inspect
import io
import itertools
import json
import os
import sys
import threading
import types

# The protocol owns the real stdout; anything written to file descriptor 1 later (a child
# process, a C library) goes to stderr instead of into the protocol.
PROTO = os.fdopen(os.dup(1), "w", encoding="utf-8", newline="\n")
os.dup2(2, 1)
LOCK = threading.Lock()
HANDLES = {}
# Handle numbers: `next` on a count is atomic under the GIL, so externals finishing at once on
# the thread pool never get the same number (`len(HANDLES) + 1` could).
HANDLE_IDS = itertools.count(1)
SCRIPT = os.path.abspath(sys.argv[1]) if len(sys.argv) > 1 else ""


def send(msg):
    line = json.dumps(msg, ensure_ascii=False, allow_nan=False)
    with LOCK:
        PROTO.write(line + "\n")
        PROTO.flush()


class Forward(io.TextIOBase):
    """sys.stdout inside the worker: an external's prints reach OPAL's output."""

    def writable(self):
        return True

    def write(self, s):
        if s:
            send({"out": s, "to": "stdout"})
        return len(s)


def encode(v):
    if isinstance(v, Raised):
        return {"$exception": describe(v.e)}
    if v is None or v is True or v is False or isinstance(v, str):
        return v
    if isinstance(v, int):
        if -(2**63) <= v < 2**63:
            return v
        raise OverflowError(f"the integer {v} does not fit in 64 bits (OPAL's integers)")
    if isinstance(v, float):
        return v if v == v and abs(v) != float("inf") else {"$float": repr(v)}
    if isinstance(v, list):
        return [encode(x) for x in v]
    if isinstance(v, tuple):
        return {"$tuple": [encode(x) for x in v]}
    if isinstance(v, dict):
        return {"$dict": [[encode(k), encode(x)] for k, x in v.items()]}
    if type(v) is set:
        return {"$set": [encode(x) for x in v]}
    n = next(HANDLE_IDS)
    HANDLES[n] = v
    return {"$handle": n, "type": type(v).__name__}


def decode(v):
    if isinstance(v, list):
        return [decode(x) for x in v]
    if isinstance(v, dict):
        if "$tuple" in v:
            return tuple(decode(x) for x in v["$tuple"])
        if "$dict" in v:
            return {decode(k): decode(x) for k, x in v["$dict"]}
        if "$set" in v:
            return {decode(x) for x in v["$set"]}
        if "$float" in v:
            return float(v["$float"])
        if "$handle" in v:
            return HANDLES[v["$handle"]]
    return v


def arguments(f, arg):
    """OPAL passes no argument as None, one as itself and several as a tuple."""
    try:
        params = inspect.signature(f).parameters.values()
    except (TypeError, ValueError):
        return (arg,)
    kinds = (inspect.Parameter.POSITIONAL_ONLY, inspect.Parameter.POSITIONAL_OR_KEYWORD)
    params = list(params)
    # A function taking `*args` is passed all its arguments as one tuple (`(x,)` for one).
    if any(p.kind == inspect.Parameter.VAR_POSITIONAL for p in params):
        if arg is None:
            return ()
        return arg if isinstance(arg, tuple) else (arg,)
    n = sum(1 for p in params if p.kind in kinds)
    if n == 0:
        return ()
    if n >= 2 and isinstance(arg, tuple):
        return arg
    return (arg,)


def resolve(namespace, path):
    """A module function internal code calls, by its dotted path (`os.path.join`)."""
    parts = path.split(".")
    if parts[0] in namespace:
        obj = namespace[parts[0]]
        rest = parts[1:]
    else:
        for i in range(len(parts) - 1, 0, -1):
            try:
                obj = importlib.import_module(".".join(parts[:i]))
            except ImportError:
                continue
            rest = parts[i:]
            break
        else:
            raise ImportError(f"no module for {path}")
    for name in rest:
        obj = getattr(obj, name)
    return obj


def target(namespace, name, arg):
    """The function a request calls, its positional and its keyword arguments."""
    if name.startswith("try."):
        f, args, kwargs = target(namespace, name[4:], arg)
        return catching(f), args, kwargs
    if name == "py.method":  # obj.name(*args, **kwargs) on an object internal code holds
        obj, method, args, kwargs = arg
        return getattr(obj, method), tuple(args), kwargs
    if name == "py.getattr":
        obj, attr = arg
        value = getattr(obj, attr)
        return (lambda: value), (), {}
    if "." not in name:
        f = namespace[name]
        return f, arguments(f, arg), {}
    f = resolve(namespace, name)
    args, kwargs = arg
    if not callable(f):  # a constant such as `math.pi`
        return (lambda: f), (), {}
    return f, tuple(args), kwargs


def catching(f):
    """`f` called from a `try` body: what it raises is its result ({"$exception": ...}), and
    a generator's items come as one list."""
    if inspect.iscoroutinefunction(f) or inspect.isasyncgenfunction(f):
        async def call(*args, **kwargs):
            try:
                if inspect.isasyncgenfunction(f):
                    return [x async for x in f(*args, **kwargs)]
                return await f(*args, **kwargs)
            except Exception as e:
                return Raised(e)
        return call

    def call(*args, **kwargs):
        try:
            if inspect.isgeneratorfunction(f):
                return list(f(*args, **kwargs))
            return f(*args, **kwargs)
        except Exception as e:
            return Raised(e)
    return call


class Raised:
    """An exception a catching call returns as its value."""

    def __init__(self, e):
        self.e = e


def describe(e):
    """Where in the script the exception was raised, its class and its message."""
    line = None
    tb = e.__traceback__
    while tb is not None:
        if os.path.abspath(tb.tb_frame.f_code.co_filename) == SCRIPT:
            line = tb.tb_lineno
        tb = tb.tb_next
    where = os.path.basename(SCRIPT) + (f":{line}" if line else "")
    text = f"{type(e).__name__}: {e}" if str(e) else type(e).__name__
    classes = [c.__name__ for c in type(e).__mro__ if c is not object]
    return {"err": f"{where}: {text}", "type": type(e).__name__, "message": str(e),
            "classes": classes}


def reply(rid, **msg):
    try:
        send({"id": rid, **msg})
    except Exception as e:  # a value that cannot cross: the call fails with why
        send({"id": rid, **describe(e)})


def call(rid, f, args, kwargs):
    try:
        if inspect.isgeneratorfunction(f):
            for item in f(*args, **kwargs):
                send({"id": rid, "item": encode(item)})
            send({"id": rid, "end": True})
        else:
            reply(rid, ok=encode(f(*args, **kwargs)))
    except BaseException as e:
        send({"id": rid, **describe(e)})


async def call_async(rid, f, args, kwargs):
    try:
        if inspect.isasyncgenfunction(f):
            async for item in f(*args, **kwargs):
                send({"id": rid, "item": encode(item)})
            send({"id": rid, "end": True})
        else:
            reply(rid, ok=encode(await f(*args, **kwargs)))
    except BaseException as e:
        send({"id": rid, **describe(e)})


DEFINITIONS = (ast.Import, ast.ImportFrom, ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)


def free_in_functions(tree):
    """The names the script's functions and classes read but do not bind themselves."""
    names = set()
    for node in ast.walk(tree):
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef, ast.Lambda)):
            loads, local = set(), set()
            if not isinstance(node, ast.ClassDef):
                local |= {a.arg for a in ast.walk(node.args) if isinstance(a, ast.arg)}
            for inner in ast.walk(node):
                if isinstance(inner, ast.Name):
                    (loads if isinstance(inner.ctx, ast.Load) else local).add(inner.id)
            names |= loads - local
    return names


def read_by_internal_code(tree):
    """The names the module-level code OPAL runs reads."""
    names = set()
    for s in tree.body:
        if not isinstance(s, DEFINITIONS):
            for inner in ast.walk(s):
                if isinstance(inner, ast.Name) and isinstance(inner.ctx, ast.Load):
                    names.add(inner.id)
    return names


def worker_part(tree):
    """The statements the worker runs: imports, definitions and the module-level values they
    read. A value internal code also reads is taken only if computing it calls nothing (a
    constant): internal code computes the others, and running them here would repeat their
    calls."""
    used = free_in_functions(tree)
    internal = read_by_internal_code(tree)
    keep = []
    for s in tree.body:
        if isinstance(s, DEFINITIONS):
            keep.append(s)
        elif isinstance(s, (ast.Assign, ast.AnnAssign)) and s.value is not None:
            targets = s.targets if isinstance(s, ast.Assign) else [s.target]
            names = [t.id for t in targets if isinstance(t, ast.Name)]
            if len(names) != len(targets) or not all(n in used for n in names):
                continue
            calls = any(isinstance(n, ast.Call) for n in ast.walk(s.value))
            if not calls or not any(n in internal for n in names):
                keep.append(s)
    return ast.Module(body=keep, type_ignores=[])


def opal_module():
    """`from opal import unordered` inside the worker: the decorators leave the function as is."""
    m = types.ModuleType("opal")
    for name in ("unordered", "readonly", "sequential"):
        setattr(m, name, lambda f: f)
    return m


def load():
    sys.modules["opal"] = opal_module()
    sys.path.insert(0, os.path.dirname(SCRIPT))
    with open(SCRIPT, encoding="utf-8") as f:
        tree = ast.parse(f.read(), SCRIPT)
    module = types.ModuleType("__opal_script__")
    module.__file__ = SCRIPT
    sys.modules["__opal_script__"] = module
    exec(compile(worker_part(tree), SCRIPT, "exec"), module.__dict__)
    return module.__dict__


def main():
    sys.stdout = Forward()
    try:
        namespace = load()
    except BaseException as e:
        send({"fatal": describe(e)["err"]})
        return
    loop = asyncio.new_event_loop()
    threading.Thread(target=loop.run_forever, daemon=True).start()
    pool = concurrent.futures.ThreadPoolExecutor(max_workers=32)
    send({"ready": True})
    for line in sys.stdin:
        try:
            req = json.loads(line)
            rid = req["id"]
        except (ValueError, KeyError, TypeError):
            continue
        try:
            f, args, kwargs = target(namespace, req["fn"], decode(req.get("arg")))
        except BaseException as e:
            send({"id": rid, **describe(e)})
            continue
        if inspect.iscoroutinefunction(f) or inspect.isasyncgenfunction(f):
            asyncio.run_coroutine_threadsafe(call_async(rid, f, args, kwargs), loop)
        else:
            pool.submit(call, rid, f, args, kwargs)
    # OPAL closed the pipe: the run is over, whatever is still running is abandoned.
    PROTO.flush()
    os._exit(0)


main()
