#!/usr/bin/env python3
"""TileBench's inferred layouts against TileLang 0.1.15's, program by program over the open corpus.

Two steps, because TileLang runs only on the GPU machine (docs/layout-agreement.md has the result):

  capture (GPU machine, TileLang importable):
      python3 scripts/layouts-vs-tilelang.py capture TILEC --out tilelang-layouts.json [--only REGEX]
    For every corpus program that `tilec check` accepts, TileLang compiles the program's jit function with
    the arguments TileBench determined for its first call (`tilec ir --json`: jitFunction, specialization).
    The compile stops right after TileLang's layout inference (where its layout-visualization pass runs), and
    every entry of every block's layout map is written as TileLang prints it: fragments (shape, thread and
    index expressions, replication) and shared layouts (index expressions). No kernel is built or run.
    A module the program imports only for its host code and this machine lacks (`varlen_utils`, `fla`) gets
    a stand-in that raises when called; the entry lists it (standIns).
    merge BASE.json PART.json --out OUT.json puts a partial capture (--only) into a full one.

  compare (anywhere):
      python3 scripts/layouts-vs-tilelang.py compare TILEC tilelang-layouts.json [--markdown OUT.md]
    Runs `tilec layouts --json --tables` on the same programs and evaluates both sides element by element:
    a fragment agrees when every element is held by the same threads at the same register, a shared buffer
    when every element sits at the same offset (a buffer absent from TileLang's layout map is row-major).
    TileLang names a buffer after the last name the program binds to it (`O_shared = Q_shared`: O_shared),
    so a TileBench buffer is looked up under its own name and then its aliases (`aliases` in the JSON).
    Prints one row per buffer and a summary; exits 1 when the two disagree anywhere that `--known` does not
    explain (or a difference it lists is gone). tests/corpus/tilelang-layouts-0.1.15.json is a capture, and
    ctest compares against it (repository_layouts_vs_tilelang) with tests/corpus/layout-differences.txt.

`compare --backend` picks TileBench's backend (default hopper: TileLang on the H200 targets sm_90a).
"""
import argparse
import concurrent.futures
import importlib.abc
import importlib.util
import itertools
import json
import os
import re
import subprocess
import sys
import traceback
import types

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), ".."))
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from corpus_programs import CORPUS, corpus_programs, run_arguments  # noqa: E402 - the one list of corpus programs


def tilec_json(tilec, *args):
    done = subprocess.run([tilec, *args], capture_output=True, text=True, timeout=600)
    if done.returncode != 0:
        raise RuntimeError(done.stderr.strip().splitlines()[-1] if done.stderr.strip() else f"rc={done.returncode}")
    return json.loads(done.stdout)


# ---------------------------------------------------------------------------------------------- capture


class HostOnlyModules(importlib.abc.MetaPathFinder, importlib.abc.Loader):
    """Stand-ins for modules a program imports only for its host code (its test data or the library it
    compares against: `varlen_utils`, `fla`), when this machine does not have them. The kernel is still
    TileLang's own compile of the program's jit function; calling anything from a stand-in raises."""

    def __init__(self):
        self.roots = set()

    def find_spec(self, fullname, path=None, target=None):
        if fullname.split(".")[0] in self.roots:
            return importlib.util.spec_from_loader(fullname, self, is_package=True)
        return None

    def create_module(self, spec):
        module = types.ModuleType(spec.name)
        module.__path__ = []

        def missing(name):
            if name.startswith("__"):
                raise AttributeError(name)

            def unavailable(*args, **kwargs):
                raise RuntimeError(f"{spec.name}.{name} is not installed here (a stand-in for the layout capture)")

            return unavailable

        module.__getattr__ = missing
        return module

    def exec_module(self, module):
        pass


def capture_one(path, function, arguments):
    """In a child process: TileLang's layout maps for one program, as JSON on stdout."""
    sys.path.insert(0, os.path.dirname(path))
    stand_ins = HostOnlyModules()
    sys.meta_path.append(stand_ins)  # last: only what no real finder provides
    import tilelang
    import tilelang.cuda.pipeline as cuda_pipeline
    import tilelang.language as T
    from tvm import tirx
    from tvm.tirx.stmt_functor import post_order_visit

    captured = []

    class LayoutsCaptured(Exception):
        pass

    def text_of(expressions):
        return [str(e) for e in (expressions if isinstance(expressions, (list, tuple)) else list(expressions))]

    def describe(key, layout):
        entry = {
            "name": key.name if hasattr(key, "name") else str(key),
            "scope": key.scope() if hasattr(key, "scope") else "",
            "inputShape": [int(x) for x in layout.get_input_shape()],
            "outputShape": [int(x) for x in layout.get_output_shape()],
            "vars": [str(v.var) if hasattr(v, "var") else str(v) for v in layout.get_forward_vars()],
            "index": text_of(layout.index),
        }
        if isinstance(layout, T.Fragment):
            entry.update(kind="fragment", thread=str(layout.thread), replicate=int(layout.replicate_size),
                         threadSize=int(layout.get_thread_size()))
        else:
            entry["kind"] = "layout"
        return entry

    def layout_visual(mod):
        for global_var, func in mod.functions.items():
            if not isinstance(func, tirx.PrimFunc):
                continue
            blocks = []

            def visit(node):
                if isinstance(node, tirx.SBlock) and "layout_map" in node.annotations:
                    blocks.append([describe(k, v) for k, v in node.annotations["layout_map"].items()])

            post_order_visit(func.body, visit)
            unique = []  # the visit reaches a block's layout map once per enclosing block: keep one of each
            for block in blocks:
                if block not in unique:
                    unique.append(block)
            captured.append({"func": global_var.name_hint, "blocks": unique})
        raise LayoutsCaptured()

    cuda_pipeline.LayoutVisual = layout_visual  # the pipeline calls it right after LayoutInference
    tilelang.disable_cache()  # a cached kernel would not go through layout inference
    with open(path) as f:
        code = compile(f.read(), path, "exec")
    while True:  # the module again with a stand-in for each import this machine lacks
        namespace = {"__name__": "tb_corpus_" + os.path.basename(path)[:-3], "__file__": path}
        try:
            exec(code, namespace)
            break
        except ModuleNotFoundError as e:
            if not e.name or e.name.split(".")[0] in stand_ins.roots:
                raise
            stand_ins.roots.add(e.name.split(".")[0])
    values = {name: eval(text, namespace) for name, text in arguments.items()}
    try:
        made = namespace[function](**values)
        if isinstance(made, tirx.PrimFunc):  # a plain factory: the program compiles it itself
            tilelang.compile(made, target="cuda")
    except Exception:  # TileLang may wrap the stop in its own error: what was captured decides
        if not captured:
            raise
    if not captured:
        raise RuntimeError("TileLang compiled without reaching layout inference (a cached kernel?)")
    print(json.dumps({"funcs": captured, "standIns": sorted(stand_ins.roots)}))


def capture_program(args, rel):
    path = os.path.join(CORPUS, rel)
    entry = {"program": rel}
    try:
        ir = tilec_json(args.tilec, "ir", path, "--json")
        entry["function"] = ir["jitFunction"]
        # A parameter host code computes from data (the varlen attentions' token counts) is a dynamic dim to
        # TileBench; TileLang compiles it for the value of a call: the --dim tilec run gives it (run-inputs.txt),
        # else tilec run's default, 256. Layouts do not depend on it.
        dims = dict(re.findall(r"--dim (\w+)=(\d+)", run_arguments().get(rel, "")))
        entry["arguments"] = {p["name"]: (dims.get(p["name"], "256") if p["origin"] == "data-dependent" else p["text"])
                              for p in ir["specialization"] if p["origin"] != "default"}
        if not entry["function"]:
            raise RuntimeError("a bare prim_func: no jit function to call")
        child = subprocess.run([sys.executable, __file__, "capture-one", path, entry["function"],
                                json.dumps(entry["arguments"])], capture_output=True, text=True,
                               timeout=args.timeout)
        if child.returncode != 0:
            raise RuntimeError(child.stderr.strip()[-1500:])
        result = json.loads(child.stdout.strip().splitlines()[-1])
        entry["funcs"] = result["funcs"]
        if result["standIns"]:
            entry["standIns"] = result["standIns"]  # host-only imports this machine lacks (HostOnlyModules)
    except Exception as e:  # noqa: BLE001 - every failure is a row of the result
        # The last line says why (the compare prints only it); the traceback above it names this machine's paths.
        entry["error"] = f"{type(e).__name__}: {e}".strip().splitlines()[-1][:500]
    done = "captured" + (f" (stand-ins for {', '.join(entry['standIns'])})" if entry.get("standIns") else "")
    print(f"{rel}: {done if 'funcs' in entry else entry['error'].splitlines()[-1][:160]}", flush=True)
    return rel, entry


def capture(args):
    with concurrent.futures.ThreadPoolExecutor(args.jobs) as pool:
        results = dict(pool.map(lambda rel: capture_program(args, rel), list(corpus_programs(compiling=True, only=args.only))))
    with open(args.out, "w") as f:
        json.dump({"capturedWith": args.note, "programs": results}, f, indent=1)


def merge(args):
    with open(args.base) as f:
        base = json.load(f)
    with open(args.part) as f:
        part = json.load(f)
    base["programs"].update(part["programs"])
    base["capturedWith"] = f"{base['capturedWith']}; {len(part['programs'])} programs again: {part['capturedWith']}"
    with open(args.out, "w") as f:
        json.dump(base, f, indent=1)


# ---------------------------------------------------------------------------------------------- compare


class TirNamespace:
    """What TVM's printer writes in an index expression, as Python over non-negative integers."""

    floordiv = staticmethod(lambda a, b: a // b)
    floormod = staticmethod(lambda a, b: a % b)
    truncdiv = floordiv
    truncmod = floormod
    bitwise_xor = staticmethod(lambda a, b: a ^ b)
    bitwise_and = staticmethod(lambda a, b: a & b)
    bitwise_or = staticmethod(lambda a, b: a | b)
    shift_left = staticmethod(lambda a, b: a << b)
    shift_right = staticmethod(lambda a, b: a >> b)
    min = staticmethod(min)
    max = staticmethod(max)
    if_then_else = staticmethod(lambda c, a, b: a if c else b)
    Select = if_then_else
    Cast = staticmethod(lambda dtype, x: int(x))
    int32 = int64 = staticmethod(int)


def evaluator(expressions, variables):
    """A function of the variables' values computing the expressions (TIR or TileBench syntax)."""
    body = ", ".join(f"({e})" for e in expressions)
    code = compile(f"lambda {', '.join(variables)}: ({body},)", "<layout>", "eval")
    return eval(code, {"T": TirNamespace, "tir": TirNamespace, "__builtins__": {"min": min, "max": max}})


def linear(indices, shape):
    offset = 0
    for index, extent in zip(indices, shape):
        offset = offset * extent + index
    return offset


def free_names(expression, known):
    names = set(re.findall(r"\b[A-Za-z_][A-Za-z_0-9]*\b", expression)) - {"T", "tir"} - set(known)
    return sorted(n for n in names if not hasattr(TirNamespace, n))


def tilelang_fragment_cells(entry):
    """[(sorted threads, register)] per element, row-major, from TileLang's expressions."""
    # A replicated fragment lists its replica variable among the forward variables (TileLang 0.1.15: "_rep").
    variables = [v for v in entry["vars"] if v not in ("_rep", "rep")]
    rep = free_names(entry["thread"], variables)
    if len(rep) > 1:
        raise ValueError(f"thread expression has unknown names {rep}")
    thread = evaluator([entry["thread"]], variables + rep)
    index = evaluator(entry["index"], variables)
    cells = []
    for element in itertools.product(*[range(n) for n in entry["inputShape"]]):
        threads = sorted(thread(*element, *([r] if rep else []))[0] for r in range(entry["replicate"]))
        cells.append((threads, linear(index(*element), entry["outputShape"])))
    return cells


def tilebench_fragment_cells(fragment):
    replicate = fragment["replicate"]
    flat = fragment["cells"]
    return [(sorted(c[0] for c in flat[e * replicate:(e + 1) * replicate]), flat[e * replicate][1])
            for e in range(len(flat) // replicate)]


def offsets(expressions, variables, input_shape, output_shape, fixed=()):
    function = evaluator(expressions, variables)
    return [linear(function(*fixed, *element), output_shape)
            for element in itertools.product(*[range(n) for n in input_shape])]


def first_difference(a, b, shape):
    for n, (x, y) in enumerate(zip(a, b)):
        if x != y:
            element = []
            for extent in reversed(shape):
                element.append(n % extent)
                n //= extent
            return list(reversed(element)), x, y
    return None


def compare_fragment(ours, theirs):
    if ours["fragment"] is None:
        return "differs", "TileBench inferred no layout"
    if list(ours["shape"]) != theirs["inputShape"]:
        return "differs", f"shape {ours['shape']} against TileLang's {theirs['inputShape']}"
    if "cells" not in ours["fragment"]:
        return "not compared", "over 65536 elements (no --tables cells)"
    a, b = tilebench_fragment_cells(ours["fragment"]), tilelang_fragment_cells(theirs)
    if a == b:
        return "equal", f"{ours['fragment']['threadExtent']} threads x {ours['fragment']['registersPerThread']} registers"
    owners_a, owners_b = [c[0] for c in a], [c[0] for c in b]
    if owners_a == owners_b:
        where, x, y = first_difference([c[1] for c in a], [c[1] for c in b], ours["shape"])
        return "registers differ", f"same threads; element {where}: register {x} against TileLang's {y}"
    shift = owners_b[0][0] - owners_a[0][0]
    if all([t + shift for t in p] == q for p, q in zip(owners_a, owners_b)):
        registers = "same" if [c[1] for c in a] == [c[1] for c in b] else "different"
        return "offset", f"TileLang's threads are ours + {shift} (a warp-specialized consumer), {registers} registers"
    where, x, y = first_difference(owners_a, owners_b, ours["shape"])
    return "differs", f"element {where}: threads {x} against TileLang's {y}"


def compare_shared(ours, theirs):
    shape = list(ours["shape"])
    layout = ours["shared"]["layout"]
    variables = [chr(ord("i") + n) for n in range(len(shape))]
    a = offsets(layout["forward"], variables, shape, layout["outputShape"])
    if theirs is None:
        b = list(range(len(a)))
        theirs_kind = "row-major (not in TileLang's layout map)"
    else:
        input_shape = theirs["inputShape"]
        fixed = ()
        if input_shape[1:] == shape and len(input_shape) == len(shape) + 1:
            fixed = (0,)  # TileLang pipelines before layout inference: stage 0 of its stage dimension
        elif input_shape != shape:
            return "differs", f"shape {shape} against TileLang's {input_shape}"
        b = offsets(theirs["index"], theirs["vars"], shape, theirs["outputShape"], fixed)
        theirs_kind = "TileLang's layout"
    if a == b:
        return "equal", f"{ours['shared']['kind']}; {theirs_kind}"
    where, x, y = first_difference(a, b, shape)
    return "differs", f"{ours['shared']['kind']}: element {where} at {x}, {theirs_kind} puts it at {y}"


def known_differences(path):
    """"PROGRAM BUFFER: explanation" lines: differences explained, which the comparison reports but accepts."""
    known = {}
    if path:
        with open(path) as f:
            for line in f:
                if line.strip() and not line.startswith("#"):
                    where, why = line.split(":", 1) if ":" in line else (line, "")
                    known[tuple(where.split())] = why.strip()
    return known


def compare(args):
    with open(args.captured) as f:
        captured = json.load(f)
    captured = captured.get("programs", captured)
    known = known_differences(args.known)
    rows, failures = [], []
    for rel, entry in sorted(captured.items()):
        if "error" in entry:
            rows.append((rel, "-", "-", "TileLang did not compile it", entry["error"].splitlines()[-1][:200]))
            continue
        ours = tilec_json(args.tilec, "layouts", os.path.join(CORPUS, rel), "--json", "--tables",
                          "--backend", args.backend)
        theirs_blocks = [b for func in entry["funcs"] for b in func["blocks"]]
        theirs = {}
        for block in theirs_blocks:
            for layout in block:
                theirs.setdefault(layout["name"], []).append(layout)
        for kernel in ours["kernels"]:
            for buffer in kernel["buffers"]:
                # TileLang names a buffer after the last name the program binds to it (O_shared = Q_shared
                # gives O_shared); TileBench after its allocation, listing the others as aliases.
                names = [buffer["name"]] + list(reversed(buffer.get("aliases", [])))
                their_name = next((n for n in names if theirs.get(n)), buffer["name"])
                candidates = theirs.get(their_name, [])
                match = candidates.pop(0) if candidates else None
                try:
                    if buffer["scope"] == "fragment":
                        if match is None:
                            verdict, why = "not compared", "not in TileLang's layout map"
                        else:
                            verdict, why = compare_fragment(buffer, match)
                    else:
                        verdict, why = compare_shared(buffer, match)
                except Exception as e:  # noqa: BLE001 - an expression this script cannot evaluate
                    verdict, why = "not compared", f"{type(e).__name__}: {e}"[:200]
                if match is not None and their_name != buffer["name"]:
                    why += f" (TileLang names it {their_name})"
                if verdict in ("differs", "registers differ"):
                    if (rel, buffer["name"]) in known:
                        verdict, why = "explained", f"{why} ({known.pop((rel, buffer['name']))})"
                    else:
                        failures.append(f"{rel} {buffer['name']}: {verdict}")
                rows.append((rel, buffer["name"], buffer["scope"], verdict, why))
    width = max(len(r[0]) for r in rows) if rows else 10
    for r in rows:
        print(f"{r[0]:{width}}  {r[1]:18} {r[2]:9} {r[3]:16} {r[4]}")
    counts = {}
    for r in rows:
        counts[r[3]] = counts.get(r[3], 0) + 1
    summary = ", ".join(f"{v} {k}" for k, v in sorted(counts.items()))
    print(f"\n{len(captured)} programs, {len(rows)} rows: {summary}")
    if args.markdown:
        with open(args.markdown, "w") as f:
            f.write("| program | buffer | scope | verdict | detail |\n|---|---|---|---|---|\n")
            for r in rows:
                f.write("| " + " | ".join(str(x).replace("|", "\\|") for x in r) + " |\n")
            f.write(f"\n{len(captured)} programs, {len(rows)} rows: {summary}\n")
    for where in known:  # the list only shrinks: an explained difference that is gone must leave it
        failures.append(f"{' '.join(where)}: listed in {args.known} but no longer differs")
    for failure in failures:
        print(f"FAIL {failure}")
    return 1 if failures else 0


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = parser.add_subparsers(dest="command", required=True)
    c = sub.add_parser("capture")
    c.add_argument("tilec")
    c.add_argument("--out", required=True)
    c.add_argument("--only", default=".")
    c.add_argument("--timeout", type=int, default=300)
    c.add_argument("--jobs", type=int, default=8)
    c.add_argument("--note", default="TileLang 0.1.15", help="provenance written into the capture")
    one = sub.add_parser("capture-one")
    one.add_argument("path")
    one.add_argument("function")
    one.add_argument("arguments")
    g = sub.add_parser("merge", help="a partial capture (capture --only) into a full one")
    g.add_argument("base")
    g.add_argument("part")
    g.add_argument("--out", required=True)
    m = sub.add_parser("compare")
    m.add_argument("tilec")
    m.add_argument("captured")
    m.add_argument("--backend", default="hopper")
    m.add_argument("--markdown")
    m.add_argument("--known", help="explained differences, one 'PROGRAM BUFFER: why' per line")
    args = parser.parse_args()
    if args.command == "capture":
        capture(args)
    elif args.command == "merge":
        merge(args)
    elif args.command == "capture-one":
        try:
            capture_one(args.path, args.function, json.loads(args.arguments))
        except Exception:
            traceback.print_exc()
            sys.exit(1)
    else:
        sys.exit(compare(args))


if __name__ == "__main__":
    main()
