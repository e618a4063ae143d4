"""The build backend of the sluice Python package (PEP 517), standard library only.

`pip install ./bindings/python` must work offline on a machine that has a C
compiler, the Python headers and jansson (scripts/install-deps), and nothing
from PyPI: setuptools builds wheels only with the `wheel` package, which a
plain python3 lacks and pip cannot fetch offline. So this backend compiles the
extension itself, from the project's own sources (lib/src, every file, so a
new one is picked up; the kit reads options with jansson), and writes the
wheel with zipfile.

The sources are found two folders up (bindings/python -> the project), or in
$SLUICE_SOURCE_DIR. $CC and $CFLAGS are honoured; $SLUICE_BUILD_JOBS sets the
parallel compiles (default: the number of cores, at most 4).
"""

import base64
import concurrent.futures
import hashlib
import os
import re
import shlex
import shutil
import subprocess
import sys
import sysconfig
import tempfile
import zipfile
from pathlib import Path

HERE = Path(__file__).resolve().parent.parent  # bindings/python
NAME = "sluice"


def _root():
    root = Path(os.environ.get("SLUICE_SOURCE_DIR") or HERE.parent.parent)
    if not (root / "lib" / "include" / "sluice.h").is_file():
        raise RuntimeError(
            "sluice: the project's sources are not at %s (lib/include/sluice.h); build from the "
            "source tree (pip install ./bindings/python) or set SLUICE_SOURCE_DIR" % root)
    return root


def _version(root):
    """The project version, written once: CMakeLists.txt's project(... VERSION x.y.z)."""
    m = re.search(r"project\(\s*sluice\s+VERSION\s+(\d+)\.(\d+)\.(\d+)",
                  (root / "CMakeLists.txt").read_text())
    if not m:
        raise RuntimeError("sluice: no project(sluice VERSION x.y.z) in CMakeLists.txt")
    return m.groups()


def _jansson():
    """Compile and link flags for jansson: pkg-config's, else the plain names."""
    if shutil.which("pkg-config"):
        try:
            out = subprocess.run(["pkg-config", "--cflags", "--libs", "jansson"], check=True,
                                 capture_output=True, text=True).stdout
            flags = shlex.split(out)
            return [f for f in flags if not f.startswith("-l")], [f for f in flags if f.startswith("-l") or f.startswith("-L")]
        except subprocess.CalledProcessError:
            pass
    return [], ["-ljansson"]


def _tag():
    impl = "cp%d%d" % sys.version_info[:2]
    plat = sysconfig.get_platform().replace("-", "_").replace(".", "_")
    return "%s-%s-%s" % (impl, impl, plat)


def _compile(build, root):
    """Builds _sluice<EXT_SUFFIX> in build; returns its path."""
    cc = shlex.split(os.environ.get("CC") or sysconfig.get_config_var("CC") or "cc")
    cflags = shlex.split(os.environ.get("CFLAGS", "-O3 -DNDEBUG"))  # as CMake's Release build
    jflags, jlibs = _jansson()
    inc = build / "include"
    inc.mkdir(parents=True, exist_ok=True)
    major, minor, patch = _version(root)
    template = (root / "lib" / "include" / "sluice_version.h.in").read_text()
    for k, v in (("PROJECT_VERSION_MAJOR", major), ("PROJECT_VERSION_MINOR", minor),
                 ("PROJECT_VERSION_PATCH", patch),
                 ("PROJECT_VERSION", "%s.%s.%s" % (major, minor, patch))):
        template = template.replace("@%s@" % k, v)
    (inc / "sluice_version.h").write_text(template)
    common = ["-fPIC", "-fvisibility=hidden", "-I%s" % inc, "-I%s" % (root / "lib" / "include"),
              "-I%s" % (root / "lib" / "src" / "core"), "-I%s" % (root / "lib" / "src" / "kit"),
              "-I%s" % (root / "bindings" / "common")]
    # the library as CMake builds it (C11, not GNU); the extension with Python's headers
    lib_sources = sorted((root / "lib" / "src").glob("*/*.c")) + [root / "bindings" / "common" / "sluice_bind.c"]
    jobs = [(src, ["-std=c11"] + jflags) for src in lib_sources]
    jobs.append((HERE / "sluice" / "_sluice.c", ["-I%s" % sysconfig.get_paths()["include"]]))

    def one(job):
        src, extra = job
        obj = build / ("%s_%s.o" % (src.parent.name, src.stem))
        cmd = cc + cflags + common + extra + ["-c", str(src), "-o", str(obj)]
        r = subprocess.run(cmd, capture_output=True, text=True)
        if r.returncode:
            raise RuntimeError("sluice: compiling %s failed:\n%s\n%s" % (src, " ".join(cmd), r.stderr))
        return obj

    workers = int(os.environ.get("SLUICE_BUILD_JOBS") or min(4, os.cpu_count() or 1))
    with concurrent.futures.ThreadPoolExecutor(workers) as pool:
        objs = list(pool.map(one, jobs))
    ext = build / ("_sluice" + sysconfig.get_config_var("EXT_SUFFIX"))
    cmd = cc + cflags + ["-shared"] + [str(o) for o in objs] + jlibs + ["-o", str(ext)]
    r = subprocess.run(cmd, capture_output=True, text=True)
    if r.returncode:
        raise RuntimeError("sluice: linking failed:\n%s\n%s" % (" ".join(cmd), r.stderr))
    return ext


def _metadata(version):
    readme = (HERE / "README.md").read_text() if (HERE / "README.md").is_file() else ""
    return ("Metadata-Version: 2.1\nName: %s\nVersion: %s\n"
            "Summary: Split-invariant streaming filters for LLM output (think blocks, harmony, "
            "JSON repair, SSE and provider streams), the sluice C library in Python\n"
            "Requires-Python: >=3.8\nLicense: see the sluice project\n"
            "Description-Content-Type: text/markdown\n\n%s" % (NAME, version, readme))


def _dist_info(version):
    return "%s-%s.dist-info" % (NAME, version)


# ---- PEP 517 hooks ----

def get_requires_for_build_wheel(config_settings=None):
    return []


def get_requires_for_build_sdist(config_settings=None):
    return []


def prepare_metadata_for_build_wheel(metadata_directory, config_settings=None):
    version = "%s.%s.%s" % _version(_root())
    info = Path(metadata_directory) / _dist_info(version)
    info.mkdir(parents=True, exist_ok=True)
    (info / "METADATA").write_text(_metadata(version))
    return info.name


def build_wheel(wheel_directory, config_settings=None, metadata_directory=None):
    root = _root()
    version = "%s.%s.%s" % _version(root)
    tag = _tag()
    wheel = Path(wheel_directory) / ("%s-%s-%s.whl" % (NAME, version, tag))
    with tempfile.TemporaryDirectory(prefix="sluice-build-") as tmp:
        ext = _compile(Path(tmp), root)
        files = [("sluice/" + p.name, p.read_bytes()) for p in sorted((HERE / "sluice").iterdir())
                 if p.suffix in (".py", ".pyi") or p.name == "py.typed"]
        files.append(("sluice/" + ext.name, ext.read_bytes()))
    info = _dist_info(version)
    files.append((info + "/METADATA", _metadata(version).encode()))
    files.append((info + "/WHEEL", ("Wheel-Version: 1.0\nGenerator: sluice backend\n"
                                    "Root-Is-Purelib: false\nTag: %s\n" % tag).encode()))
    files.append((info + "/top_level.txt", b"sluice\n"))
    record = []
    for name, data in files:
        digest = base64.urlsafe_b64encode(hashlib.sha256(data).digest()).rstrip(b"=").decode()
        record.append("%s,sha256=%s,%d" % (name, digest, len(data)))
    record.append(info + "/RECORD,,")
    files.append((info + "/RECORD", ("\n".join(record) + "\n").encode()))
    with zipfile.ZipFile(wheel, "w", zipfile.ZIP_DEFLATED) as z:
        for name, data in files:
            zi = zipfile.ZipInfo(name, date_time=(2020, 1, 1, 0, 0, 0))
            zi.external_attr = (0o755 if name.endswith(ext.suffix) else 0o644) << 16
            zi.compress_type = zipfile.ZIP_DEFLATED
            z.writestr(zi, data)
    return wheel.name


if __name__ == "__main__":
    # python3 bindings/python/_build/backend.py: the extension built into
    # bindings/python/sluice/ (git ignores it), for working on the package.
    with tempfile.TemporaryDirectory(prefix="sluice-build-") as tmp:
        built = _compile(Path(tmp), _root())
        shutil.copy(built, HERE / "sluice" / built.name)
        print("built", HERE / "sluice" / built.name)
