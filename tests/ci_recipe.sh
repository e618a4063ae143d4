#!/bin/sh
# ci_recipe.sh SRC WORKDIR: runs the `run:` steps of the README's CI recipe
# (between the ci-recipe markers) the way GitHub Actions would, in a fresh
# "user repository" holding a filter server, and checks the JUnit report it
# uploads. Emulated: the job's env, $RUNNER_TEMP, $HOME, $GITHUB_PATH (its
# lines are put on PATH for later steps), and `sudo apt-get`, which must
# name only packages that are installed here (they are checked, not
# installed). The build sees only what the recipe installs: pkg-config is
# pointed at a folder holding the .pc files of the packages it names, so a
# recipe that leaves out a library the build needs fails here as it would
# on a clean runner. SLUICE_REPO points at this source tree (committed
# state).
set -eu
src=$1 work=$2
command -v python3 >/dev/null || { echo "python3 not found: skipped"; exit 77; }
command -v git >/dev/null || { echo "git not found: skipped"; exit 77; }
rm -rf "$work"
mkdir -p "$work/repo" "$work/runner" "$work/home" "$work/bin" "$work/pkgconfig"
# the user's repository: the example think filter as their server
cp "$src/conformance/adapters/sluice_adapter.py" "$work/repo/"
sed 's#os.path.join(os.path.dirname(os.path.abspath(__file__)), "..")#os.path.dirname(os.path.abspath(__file__))#' \
  "$src/conformance/adapters/examples/think_filter.py" > "$work/repo/my_filter_server.py"
printf '# known failures of my filter: CASE-ID reason\n' > "$work/repo/known-failures.txt"
# sudo: apt-get update does nothing; apt-get install checks its packages
cat > "$work/bin/sudo" <<'SH'
#!/bin/sh
[ "$1" = apt-get ] || exec "$@"
shift
[ "$1" = update ] && exit 0
[ "$1" = install ] || { echo "ci recipe: unexpected apt-get $*" >&2; exit 1; }
shift
for p in "$@"; do
  case "$p" in -*) continue ;; esac
  dpkg -s "$p" >/dev/null 2>&1 || { echo "ci recipe: package $p is not installed here" >&2; exit 1; }
  # what the package gives pkg-config becomes visible to the build
  for pc in $(dpkg -L "$p" | grep '\.pc$'); do ln -sf "$pc" "$CI_PKGCONFIG/"; done
done
SH
chmod +x "$work/bin/sudo"
# the steps, as scripts
python3 - "$src/README.md" "$work" <<'PY'
import re, sys
readme, work = sys.argv[1], sys.argv[2]
text = open(readme).read()
block = text.split("<!-- ci-recipe")[1].split("<!-- /ci-recipe -->")[0]
block = block.split("```yaml")[1].split("```")[0]
env = dict(re.findall(r"^\s{6}(\w+): (.+)$", block.split("steps:")[0], re.M))
steps, lines = [], block.split("\n")
i = 0
while i < len(lines):
    m = re.match(r"^(\s*)(?:- )?run: \|\s*$", lines[i])
    if m:
        ind, body = len(m.group(1)) + 2, []
        i += 1
        while i < len(lines) and (not lines[i].strip() or len(lines[i]) - len(lines[i].lstrip()) > ind - 2 and not re.match(r"^\s*- ", lines[i])):
            body.append(lines[i][ind:] if len(lines[i]) > ind else "")
            i += 1
        steps.append("\n".join(body).strip() + "\n")
        continue
    i += 1
if len(steps) != 2 or "SLUICE_REPO" not in env:
    sys.exit("ci recipe: expected 2 run steps and SLUICE_REPO, found %d steps, env %s" % (len(steps), env))
for n, s in enumerate(steps):
    open("%s/step%d.sh" % (work, n), "w").write(s)
print("ci recipe: %d steps" % len(steps))
PY
export RUNNER_TEMP="$work/runner" HOME="$work/home" GITHUB_PATH="$work/github_path"
export CI_PKGCONFIG="$work/pkgconfig" PKG_CONFIG_LIBDIR="$work/pkgconfig" PKG_CONFIG_PATH=""
export SLUICE_REPO="file://$src"
: > "$GITHUB_PATH"
for step in "$work"/step*.sh; do
  echo "== $(head -1 "$step")"
  PATH="$work/bin:$(tr '\n' ':' < "$GITHUB_PATH")$PATH"
  (cd "$work/repo" && PATH="$PATH" bash -e "$step")
done
report=$work/repo/sluice-junit.xml
[ -s "$report" ] || { echo "ci recipe: no report at $report"; exit 1; }
grep -q '<testsuites name="sluice conform"' "$report"
grep -Eq 'failures="0" errors="0"' "$report"
if command -v xmllint >/dev/null; then xmllint --noout --schema "$src/tests/junit.xsd" "$report"; fi
ls "$CI_PKGCONFIG" | grep -qx jansson.pc || { echo "ci recipe: jansson.pc was not made visible"; exit 1; }
echo "ci recipe: every step ran with only the recipe's packages visible; the report has no failures"
