"""Rewrites jars with their entries stored, not deflated, for prepare-gpu-run.sh.

A jar's own compression hides its classes from xz; stored jars run as they are (the JVM reads
stored entries directly) and compress about twice as well in one solid .tar.xz, where identical
jars (the operator and the examples share many) are also written once, as hard links.
From jcuda-natives only the driver API's native library is kept: smslice uses nothing else
of JCuda (the other libraries are 25 MB, one of them 24 MB).

  python3 stored_jars.py SOURCE=TARGET...
"""

import hashlib
import os
import sys
import zipfile

JCUDA_KEEP = "lib/libJCudaDriver-"


def keep(jar_name, entry_name):
    if jar_name.startswith("jcuda-natives-") and entry_name.startswith("lib/lib"):
        return entry_name.startswith(JCUDA_KEEP)
    return True


def store(source, target):
    name = os.path.basename(source)
    os.makedirs(os.path.dirname(target), exist_ok=True)
    with zipfile.ZipFile(source) as src, zipfile.ZipFile(target, "w", zipfile.ZIP_STORED) as dst:
        dst.comment = src.comment
        for info in src.infolist():
            if not keep(name, info.filename):
                continue
            copy = zipfile.ZipInfo(info.filename, info.date_time)
            copy.external_attr = info.external_attr
            copy.create_system = info.create_system
            copy.comment = info.comment
            copy.extra = info.extra
            copy.compress_type = zipfile.ZIP_STORED
            dst.writestr(copy, src.read(info.filename))


def digest(path):
    h = hashlib.sha256()
    with open(path, "rb") as f:
        for chunk in iter(lambda: f.read(1 << 20), b""):
            h.update(chunk)
    return h.hexdigest()


def main(pairs):
    seen = {}
    shared = 0
    for pair in pairs:
        source, _, target = pair.partition("=")
        if not target:
            raise SystemExit("expected SOURCE=TARGET, got %r" % pair)
        store(source, target)
        d = digest(target)
        if d in seen:
            shared += os.path.getsize(target)
            os.remove(target)
            os.link(seen[d], target)
        else:
            seen[d] = target
    print("stored %d jars, %d identical ones linked (%.1f MB written once)"
          % (len(pairs), len(pairs) - len(seen), shared / 1e6))


if __name__ == "__main__":
    main(sys.argv[1:])
