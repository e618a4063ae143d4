#!/usr/bin/env python3
"""ci_recipe.py SRC WORK [DEB]: runs the README's CI recipe (between the
ci-recipe markers), whose one sluice step uses this repository's action
(action.yml), the way GitHub Actions runs a composite action, in a fresh
"user repository" holding a filter server, and checks what it uploads.

Emulated: the inputs (the step's `with:` over the action's defaults, each
named input declared by the action), the ${{ }} expressions the action uses,
$GITHUB_ACTION_PATH (this source tree), $RUNNER_TEMP, $HOME, $GITHUB_PATH
(its lines are put on PATH for later steps), $GITHUB_OUTPUT, `if: always()`,
actions/upload-artifact (the file is copied out), and `sudo apt-get`, which
must name only packages installed here (they are checked, not installed):
the build sees only what it installs (pkg-config is pointed at a folder of
their .pc files), and a .deb is unpacked into a scratch root whose bin/
goes on PATH once every package it depends on is checked. Runs:
  recipe  the step as the README writes it (no release to download from
          here: the action builds its source, library, kit and command);
  deb     the same with package: DEB (the CTest deb_package's), when given;
  broken  with impl: cat (every answer wrong): the step fails, the report
          is uploaded anyway and counts the failures.
"""
import os
import re
import shutil
import subprocess
import sys

try:
    import yaml
except ImportError:
    print("python3-yaml not found: skipped")
    sys.exit(77)

src, work = os.path.abspath(sys.argv[1]), os.path.abspath(sys.argv[2])
deb = os.path.abspath(sys.argv[3]) if len(sys.argv) > 3 and sys.argv[3] else None
if deb and os.path.isdir(deb):  # the folder cpack wrote the package to
    debs = [f for f in os.listdir(deb) if f.endswith(".deb")]
    deb = os.path.join(deb, debs[0]) if len(debs) == 1 else None
for tool in ("git", "cmake", "cc", "dpkg"):
    if not shutil.which(tool):
        print("%s not found: skipped" % tool)
        sys.exit(77)


def fail(msg):
    sys.exit("ci recipe: " + msg)


# ---- the recipe and the action ----
readme = open(os.path.join(src, "README.md")).read()
block = readme.split("<!-- ci-recipe")[1].split("<!-- /ci-recipe -->")[0]
recipe = yaml.safe_load(block.split("```yaml")[1].split("```")[0])
jobs = list(recipe["jobs"].values())
if len(jobs) != 1:
    fail("expected one job in the recipe, found %d" % len(jobs))
ours = [s for s in jobs[0]["steps"] if re.match(r"^[\w.-]+/sluice@\S+$", s.get("uses", ""))]
if len(ours) != 1:
    fail("expected one step using OWNER/sluice@VERSION, found %d" % len(ours))
given = {k: str(v) for k, v in (ours[0].get("with") or {}).items()}
action = yaml.safe_load(open(os.path.join(src, "action.yml")))
declared = action["inputs"]
if set(given) - set(declared):
    fail("the recipe gives inputs the action does not declare: %s" % sorted(set(given) - set(declared)))
for name, spec in declared.items():
    if spec.get("required") and name not in given:
        fail("the recipe leaves out the required input %s" % name)
if action["runs"]["using"] != "composite":
    fail("the action is not a composite action")

SUDO = r"""#!/bin/sh
# apt-get update does nothing; apt-get install checks its packages
[ "$1" = apt-get ] || exec "$@"
shift
[ "$1" = -qq ] && shift
[ "$1" = update ] && exit 0
[ "$1" = install ] || { echo "ci recipe: unexpected apt-get $*" >&2; exit 1; }
shift
for p in "$@"; do
  case "$p" in
    -*) continue ;;
    */*.deb)
      for d in $(dpkg-deb -f "$p" Depends | tr ',' '\n' | sed 's/^ *//; s/[ :(|].*//'); do
        dpkg -s "$d" >/dev/null 2>&1 || { echo "ci recipe: $p depends on $d, not installed here" >&2; exit 1; }
      done
      dpkg -x "$p" "$CI_SYSROOT" && echo "$CI_SYSROOT/usr/bin" >> "$GITHUB_PATH"
      continue ;;
  esac
  dpkg -s "$p" >/dev/null 2>&1 || { echo "ci recipe: package $p is not installed here" >&2; exit 1; }
  for pc in $(dpkg -L "$p" | grep '\.pc$'); do ln -sf "$pc" "$CI_PKGCONFIG/"; done
done
"""


def expression(text, ctx):
    def one(m):
        key = m.group(1).strip()
        if key not in ctx:
            fail("the action uses ${{ %s }}, which this test does not know" % key)
        return ctx[key]
    return re.sub(r"\$\{\{(.*?)\}\}", one, text)


def run(name, inputs):
    """Runs the action's steps; returns (the conform step's status, the
    uploaded report's path or None, the step outputs)."""
    base = os.path.join(work, name)
    d = {k: os.path.join(base, k) for k in ("repo", "runner", "home", "bin", "pkgconfig", "sysroot", "artifacts")}
    for p in d.values():
        os.makedirs(p)
    shutil.copy(os.path.join(src, "conformance/adapters/sluice_adapter.py"), d["repo"])
    server = open(os.path.join(src, "conformance/adapters/examples/think_filter.py")).read()
    server = server.replace('os.path.join(os.path.dirname(os.path.abspath(__file__)), "..")',
                            "os.path.dirname(os.path.abspath(__file__))")
    open(os.path.join(d["repo"], "my_filter_server.py"), "w").write(server)
    open(os.path.join(d["repo"], "known-failures.txt"), "w").write("# known failures: CASE-ID reason\n")
    open(os.path.join(d["bin"], "sudo"), "w").write(SUDO)
    # apt-get only through sudo (the shim): never the machine's own
    open(os.path.join(d["bin"], "apt-get"), "w").write(
        "#!/bin/sh\necho 'ci recipe: apt-get run without sudo' >&2\nexit 1\n")
    for tool in ("sudo", "apt-get"):
        os.chmod(os.path.join(d["bin"], tool), 0o755)
    github_path = os.path.join(base, "github_path")
    open(github_path, "w").close()
    ctx = {"inputs.%s" % k: v for k, v in inputs.items()}
    ctx.update({"github.action_path": src, "github.action_repository": "", "github.action_ref": ""})
    env = dict(os.environ)
    env.update({"RUNNER_TEMP": d["runner"], "HOME": d["home"], "GITHUB_PATH": github_path,
                "GITHUB_ACTION_PATH": src, "CI_PKGCONFIG": d["pkgconfig"], "CI_SYSROOT": d["sysroot"],
                "PKG_CONFIG_LIBDIR": d["pkgconfig"], "PKG_CONFIG_PATH": ""})
    for k in [k for k in env if k.startswith("SLUICE_")]:
        del env[k]  # the action's environment is its own
    failed, status, report, outputs = False, None, None, {}
    for step in action["runs"]["steps"]:
        cond = step.get("if")
        if cond not in (None, "always()"):
            fail("the test knows no condition but always(): %s" % cond)
        if failed and cond != "always()":
            print("== %s: %s (skipped: a step failed)" % (name, step.get("name")))
            continue
        print("== %s: %s" % (name, step.get("name")), flush=True)
        if "run" in step:
            if step.get("shell") != "bash":
                fail("step %r: shell must be bash" % step.get("name"))
            out_file = os.path.join(base, "output-%s" % step.get("id", "x"))
            open(out_file, "w").close()
            senv = dict(env, GITHUB_OUTPUT=out_file)
            senv.update({k: expression(str(v), ctx) for k, v in (step.get("env") or {}).items()})
            extra = [d["bin"]] + [l for l in open(github_path).read().splitlines() if l]
            senv["PATH"] = ":".join(extra + [env["PATH"]])
            script = os.path.join(base, "step.sh")
            open(script, "w").write(expression(step["run"], ctx))
            rc = subprocess.call(["bash", "--noprofile", "--norc", "-eo", "pipefail", script],
                                 cwd=d["repo"], env=senv)
            if step.get("id"):
                for line in open(out_file).read().splitlines():
                    k, _, v = line.partition("=")
                    outputs["steps.%s.outputs.%s" % (step["id"], k)] = v
                    ctx["steps.%s.outputs.%s" % (step["id"], k)] = v
            if step.get("id") == "conform":
                status = rc
            if rc != 0:
                print("== %s: the step exited with %d" % (name, rc))
                failed = True
        elif step.get("uses", "").startswith("actions/upload-artifact@"):
            w = {k: expression(str(v), ctx) for k, v in step["with"].items()}
            path = os.path.join(d["repo"], w["path"])
            if not os.path.isfile(path):
                fail("%s: nothing to upload at %s" % (name, w["path"]))
            dest = os.path.join(d["artifacts"], w["name"])
            os.makedirs(dest)
            report = shutil.copy(path, dest)
        else:
            fail("the test does not know the step %r" % step)
    return status, report, outputs


def check_report(report, want_failures):
    text = open(report).read()
    if '<testsuites name="sluice conform"' not in text:
        fail("%s is not sluice conform's JUnit report" % report)
    m = re.search(r'<testsuites[^>]* tests="(\d+)" failures="(\d+)" errors="(\d+)"', text)
    if not m or int(m.group(1)) == 0:
        fail("%s: no tests counted" % report)
    failures = int(m.group(2)) + int(m.group(3))
    if (failures > 0) != want_failures:
        fail("%s: %d failures and errors" % (report, failures))
    if shutil.which("xmllint"):
        subprocess.check_call(["xmllint", "--noout", "--schema", os.path.join(src, "tests/junit.xsd"), report])
    return int(m.group(1)), failures


shutil.rmtree(work, ignore_errors=True)
inputs = {k: str(v.get("default", "")) for k, v in declared.items()}
inputs.update(given)
runs = [("recipe", inputs)]
if deb:
    runs.append(("deb", dict(inputs, package=deb)))
runs.append(("broken", dict(inputs, impl="cat")))
for name, values in runs:
    status, report, outputs = run(name, values)
    if report is None:
        fail("%s: no report was uploaded" % name)
    if name == "broken":
        if status != 1:
            fail("broken: the conform step exited with %s, not 1" % status)
        n, bad = check_report(report, True)
        print("ci recipe: broken: the step failed and its report was uploaded (%d of %d failed)" % (bad, n))
        continue
    if status != 0:
        fail("%s: the conform step exited with %s" % (name, status))
    if outputs.get("steps.conform.outputs.report") != values["report"]:
        fail("%s: the step's report output is %r" % (name, outputs.get("steps.conform.outputs.report")))
    n, _ = check_report(report, False)
    print("ci recipe: %s: %d cases passed, the report uploaded" % (name, n))
pcs = os.listdir(os.path.join(work, "recipe", "pkgconfig"))
if "jansson.pc" not in pcs:
    fail("jansson.pc was not made visible: the build did not go through apt-get install")
print("ci recipe: the action ran as the README uses it (%s)" % ", ".join(n for n, _ in runs))
