#!/usr/bin/env python3
"""Runs the golden suites against every mutant of conformance/mutants/ and
shows which cases kill each one.

    python3 conformance/mutants/run_mutants.py --sluice build/sluice --bin build/tests

mutants.json lists the mutants: each is an implementation with one documented
bug, served through the filter protocol, with the suites (or suite files) it
is run on. A mutant is killed by a case when `sluice conform` fails the case
in any split mode (an output failure, or a latency failure in a streaming
session). Every mutant must be killed by at least --min-kills cases (3).

Each family of mutants has a control: the same program without a bug. It is
run first, on every suite file its mutants use, and must pass all of them;
otherwise a "kill" could be the program's own mistake rather than the bug's.

Exit status: 0 when every control passes and every mutant is killed often
enough, 1 otherwise, 2 on a usage or setup error. Standard library only.
"""
import argparse
import concurrent.futures
import json
import os
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
BAD = ("fail", "latency")


def load(path):
    with open(path, encoding="utf-8") as f:
        m = json.load(f)
    names = set()
    for mu in m["mutants"]:
        if mu["name"] in names:
            raise SystemExit("%s: mutant %s is listed twice" % (path, mu["name"]))
        names.add(mu["name"])
        if mu["family"] not in m["families"]:
            raise SystemExit("%s: mutant %s: no family %s" % (path, mu["name"], mu["family"]))
    return m


def command(template, args):
    return template.format(python=sys.executable, dir=HERE, bin=args.bin or "")


def conform(args, impl, suites, extra, jobs):
    """Runs sluice conform; returns ({case: {mode: status}}, seconds, stderr)."""
    cmd = [args.sluice, "conform", "--format", "json", "-j", str(jobs), "--impl", impl]
    for s in suites:
        cmd += ["--suite", s]
    cmd += extra
    t0 = time.time()
    p = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    secs = time.time() - t0
    cases = {}
    for line in p.stdout.decode("utf-8", "replace").split("\n"):  # not splitlines(): U+2028
        try:
            r = json.loads(line)
        except ValueError:
            continue
        if r.get("record", "case") != "case":
            continue  # the run record
        cases.setdefault("%s/%s" % (r["suite"], r["case"]), {})[r["mode"]] = r["status"]
    err = p.stderr.decode("utf-8", "replace")
    if p.returncode == 2 or not cases:
        raise RuntimeError("sluice conform failed to run %s (exit %d):\n%s"
                           % (impl, p.returncode, err[-2000:]))
    return cases, secs, err, p.returncode


def killers(cases, counted=None):
    """{case: [modes where it failed]} for the cases that fail (of those
    counted, when given)."""
    out = {}
    for case, modes in cases.items():
        bad = [m for m, st in modes.items() if st in BAD]
        if bad and (counted is None or case in counted):
            out[case] = bad
    return out


def passed(cases):
    """The cases that passed in every split mode (not skipped)."""
    return {c for c, modes in cases.items() if all(st == "pass" for st in modes.values())}


def mutant_kills(m, results, mu):
    """A mutant's killing cases and the number of cases that count: those its
    control passes (a case the control skips or fails proves nothing)."""
    r = results[("mutant", mu["name"])]
    ctl = results.get(("control", mu["family"]))
    counted = passed(ctl["cases"]) & set(r["cases"]) if ctl else set(r["cases"])
    return killers(r["cases"], counted), len(counted)


def run_one(args, m, job):
    kind, name = job
    if kind == "control":
        fam = m["families"][name]
        suites = {s for mu in m["mutants"] if mu["family"] == name for s in mu["suites"]}
        # a whole suite covers its files
        suites = sorted(s for s in suites if s.split("/")[0] == s or s.split("/")[0] not in suites)
        impl, extra = command(fam["impl"], args), fam.get("args", [])
    else:
        mu = next(x for x in m["mutants"] if x["name"] == name)
        fam = m["families"][mu["family"]]
        suites = mu["suites"]
        impl = command(fam["impl"], args) + " " + mu.get("bug_arg", mu["name"].split("-", 1)[1])
        extra = fam.get("args", [])
    cases, secs, err, rc = conform(args, impl, suites, extra, args.conform_jobs)
    return {"kind": kind, "name": name, "suites": suites, "cases": cases, "seconds": secs,
            "stderr": err, "exit": rc}


def mode_summary(kills):
    count = {}
    for modes in kills.values():
        for mo in modes:
            count[mo] = count.get(mo, 0) + 1
    return ", ".join("%s %d" % (mo, n) for mo, n in sorted(count.items(), key=lambda x: -x[1]))


def report_text(m, results, args):
    ok = True
    print("controls (each must pass every case it is run on):")
    for name in m["families"]:
        r = results.get(("control", name))
        if not r:
            continue
        kills = killers(r["cases"])
        # a case can fail as a whole (a pinned max_held) with every split mode passing:
        # the exit status says so
        status = "ok" if not kills and r["exit"] == 0 else "FAILED"
        ok &= status == "ok"
        print("  %-10s %-7s %4d cases  %6.1f s  %s" % (name, status, len(r["cases"]), r["seconds"],
                                                     " ".join(r["suites"])))
        for case, modes in sorted(kills.items()):
            print("      fails %s (%s)" % (case, ", ".join(modes)))
        if status != "ok" and not kills:
            print("      sluice conform exited with %d:\n%s" % (r["exit"], r["stderr"][-1500:]))
    print("\nmutants (each must be killed by at least %d cases):" % args.min_kills)
    for mu in m["mutants"]:
        r = results.get(("mutant", mu["name"]))
        if not r:
            continue
        kills, counted = mutant_kills(m, results, mu)
        enough = len(kills) >= args.min_kills
        ok &= enough
        print("  %-32s %-8s killed by %3d of %3d cases  %6.1f s" % (
            mu["name"], "ok" if enough else "SURVIVES", len(kills), counted, r["seconds"]))
        if not enough:
            print("      class: %s; bug: %s" % (mu["class"], mu["bug"]))
        shown = sorted(kills.items()) if args.verbose else sorted(kills.items())[:3]
        for case, modes in shown:
            print("      killed by %s (%s)" % (case, ", ".join(sorted(modes))))
        if len(shown) < len(kills):
            print("      ... %d more (-v lists them); by split mode: %s"
                  % (len(kills) - len(shown), mode_summary(kills)))
    return ok


def class_cases(m):
    """suite/id of every case whose source names a mutation class, by class."""
    by = {}
    sys.setrecursionlimit(100000)  # some cases nest 2049 deep
    root = os.path.join(HERE, "..", "suites")
    for suite in sorted(os.listdir(root)):
        d = os.path.join(root, suite)
        for name in sorted(os.listdir(d)) if os.path.isdir(d) else []:
            if not name.endswith(".json"):
                continue
            with open(os.path.join(d, name), encoding="utf-8") as f:
                for c in json.load(f)["cases"]:
                    src = c.get("source", "")
                    if src.startswith("mutation class "):
                        cls = src[len("mutation class "):].split(":")[0]
                        by.setdefault(cls, set()).add("%s/%s" % (suite, c["id"]))
    return by


def report_markdown(m, results, args):
    mine = class_cases(m)
    print("| mutant | language | class | the bug | killed by | for example |")
    print("|---|---|---|---|---|---|")
    for mu in m["mutants"]:
        r = results.get(("mutant", mu["name"]))
        if not r:
            continue
        kills, counted = mutant_kills(m, results, mu)
        fam = m["families"][mu["family"]]
        # the cases written for its class first, then those failing it in most split modes
        own = mine.get(mu["class"], set())
        ids = sorted(kills, key=lambda c: (c not in own, -len(kills[c]), c))
        examples = ", ".join("`%s`" % c.split("/", 1)[1] for c in ids[:3])
        print("| `%s` | %s | %s | %s | %d of %d | %s |" % (
            mu["name"], fam["language"], mu["class"], mu["bug"].replace("|", "\\|"),
            len(kills), counted, examples))


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--sluice", required=True, help="the sluice command")
    ap.add_argument("--bin", help="the folder of the compiled mutants (build/tests)")
    ap.add_argument("--manifest", default=os.path.join(HERE, "mutants.json"))
    ap.add_argument("--only", action="append", default=[],
                    help="run only mutants whose name contains this (repeatable)")
    ap.add_argument("--min-kills", type=int, default=3)
    ap.add_argument("-j", "--jobs", type=int, default=2, help="conform runs at once")
    ap.add_argument("--conform-jobs", type=int, default=1, help="-j of each conform run")
    ap.add_argument("--markdown", action="store_true", help="print the README table")
    ap.add_argument("--json", action="store_true", help="print every kill as JSON")
    ap.add_argument("-v", "--verbose", action="store_true", help="list every killing case")
    args = ap.parse_args()
    m = load(args.manifest)
    chosen = [mu for mu in m["mutants"]
              if not args.only or any(o in mu["name"] for o in args.only)]
    if not chosen:
        print("run_mutants: no mutant selected", file=sys.stderr)
        return 2
    families = sorted({mu["family"] for mu in chosen})
    m["mutants"] = [mu for mu in m["mutants"] if mu["family"] in families]
    jobs = [("control", f) for f in families] + [("mutant", mu["name"]) for mu in chosen]
    t0 = time.time()
    results = {}
    with concurrent.futures.ThreadPoolExecutor(max_workers=max(1, args.jobs)) as ex:
        futs = {ex.submit(run_one, args, m, j): j for j in jobs}
        for fut in concurrent.futures.as_completed(futs):
            try:
                r = fut.result()
            except RuntimeError as e:
                print("run_mutants: %s" % e, file=sys.stderr)
                return 2
            results[(r["kind"], r["name"])] = r
    m["mutants"] = chosen
    if args.json:
        out = {}
        for mu in chosen:
            kills, counted = mutant_kills(m, results, mu)
            out[mu["name"]] = {"class": mu["class"], "kills": kills, "cases": counted}
        print(json.dumps(out, indent=1, sort_keys=True))
        return 0
    if args.markdown:
        report_markdown(m, results, args)
        return 0
    ok = report_text(m, results, args)
    print("\n%d mutants, %d controls, %.0f s: %s" % (
        len(chosen), len(families), time.time() - t0,
        "every mutant killed by %d or more cases" % args.min_kills if ok else "FAILED"))
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
