"""What the case generators of the stream suites (sse, provider, pipeline) share:
byte strings in the case format, and writing a suite's files."""
import json
import os


def spec(b):
    """A byte string in the case format: a string when UTF-8, else hex."""
    try:
        return b.decode("utf-8")
    except UnicodeDecodeError:
        return {"hex": b.hex()}


def case_entry(cid, input_bytes, expect, source, options=None, filter_name=None, chunks=None):
    """One case in the file format (FORMAT.md), fields in the usual order."""
    out = {"id": cid, "input": spec(input_bytes)}
    if filter_name:
        out["filter"] = filter_name
    if options:
        out["options"] = options
    if chunks is not None:
        out["chunks"] = [spec(x) for x in chunks]
    out["expect"] = expect
    out["source"] = source
    return out


def write_suite(here, filter_name, notes, by_file, label):
    """Writes {file: [cases]} into here (each file's note from notes); the
    ids must be unique in each file. Prints and returns the case count."""
    total = 0
    for name, cases in by_file.items():
        ids = [c["id"] for c in cases]
        assert len(ids) == len(set(ids)), name
        doc = {"filter": filter_name, "note": notes[name], "cases": cases}
        with open(os.path.join(here, name), "w", encoding="utf-8") as f:
            json.dump(doc, f, indent=1, ensure_ascii=False)
            f.write("\n")
        total += len(cases)
    print("%s suite: %d cases in %d files" % (label, total, len(by_file)))
    return total
