#!/usr/bin/env python3
"""Fetch the benchmark's real-code corpora from the package registry: pinned, hashed, cached.

The project carries no copies of third-party code. ``bench/corpus.json`` names, for each corpus,
the distributions it is made of (name, exact version, the wheel or sdist file and its sha256) and
which of their folders and files form the corpus. ``fetch`` downloads each file with
``python -m pip download --no-deps`` (so pip's configured index and proxy apply), checks its
sha256 against the manifest (a mismatch is an error: the file is deleted, never used), and unpacks
the listed members into a cache folder, ``bench/.corpus/`` by default (git-ignored;
``$GBLINT_BENCH_CORPUS_CACHE`` or ``--cache`` choose another), once. Later calls check the cached
archives' hashes again and reuse the unpacked tree, with no network.

Usage (any Python 3.9+, standard library only)::

    python3 bench/corpus.py                    # fetch every corpus, print its root folder
    python3 bench/corpus.py fetch models       # the same for one corpus
    python3 bench/corpus.py fetch --offline    # only what is cached; an error if something is not
    python3 bench/corpus.py list               # what the manifest pins

Layout of the cache::

    CACHE/archives/FILE             the downloaded wheels/sdists, as pip saved them
    CACHE/<corpus>/...              the unpacked corpus (e.g. models/vit_pytorch/*.py)
    CACHE/<corpus>/.fetched.json    what it was unpacked from (names, versions, hashes)
    CACHE/generated/                files bench/run.py derives from a corpus (the 20k-line file)

To change a pin: ``python3 -m pip download --no-deps NAME==VERSION -d /tmp/x``, ``sha256sum`` the
file, and edit ``file``, ``version``, ``sha256`` (and the file/line counts) in bench/corpus.json.
"""
from __future__ import annotations

import argparse
import hashlib
import json
import os
import shutil
import subprocess
import sys
import tarfile
import tempfile
import zipfile

BENCH = os.path.dirname(os.path.abspath(__file__))
MANIFEST = os.path.join(BENCH, "corpus.json")
DEFAULT_CACHE = os.path.join(BENCH, ".corpus")
CACHE_ENV = "GBLINT_BENCH_CORPUS_CACHE"
STAMP = ".fetched.json"


class CorpusError(RuntimeError):
    """A corpus could not be fetched or verified (download failed, hash mismatch, bad archive)."""


def load_manifest(path: str = MANIFEST) -> dict:
    """Read the manifest (bench/corpus.json) and return it as a dict."""
    with open(path, encoding="utf-8") as fh:
        return json.load(fh)


def cache_dir(cache: str | None = None) -> str:
    """The cache folder: ``cache`` if given, else ``$GBLINT_BENCH_CORPUS_CACHE``, else bench/.corpus."""
    return os.path.abspath(cache or os.environ.get(CACHE_ENV) or DEFAULT_CACHE)


def sha256_file(path: str) -> str:
    """The hex sha256 of a file's bytes."""
    h = hashlib.sha256()
    with open(path, "rb") as fh:
        for block in iter(lambda: fh.read(1 << 20), b""):
            h.update(block)
    return h.hexdigest()


def _log(msg: str, quiet: bool) -> None:
    if not quiet:
        print(f"corpus: {msg}", file=sys.stderr)


def _mismatch(pkg: dict, path: str, got: str) -> CorpusError:
    return CorpusError(
        f"sha256 mismatch for {os.path.basename(path)} ({pkg['name']}=={pkg['version']}): expected {pkg['sha256']}, "
        f"got {got}. The file was deleted and is not used. If the registry really serves a different file for "
        f"this version, check it and update bench/corpus.json; otherwise retry.")


def _pip_download(pkg: dict, dest: str, python: str) -> str:
    """Run pip download for one pinned distribution into an empty folder; return the file's path."""
    binary = ["--only-binary", ":all:"] if pkg.get("kind", "wheel") == "wheel" else ["--no-binary", ":all:"]
    argv = [python, "-m", "pip", "download", "--no-deps", *binary, "--disable-pip-version-check",
            "--progress-bar", "off", "-d", dest, f"{pkg['name']}=={pkg['version']}"]
    try:
        p = subprocess.run(argv, capture_output=True, text=True)
    except OSError as e:
        raise CorpusError(f"cannot run pip ({python}): {e}") from e
    if p.returncode != 0:
        tail = "\n    ".join((p.stderr or p.stdout).strip().splitlines()[-6:])
        raise CorpusError(f"pip download {pkg['name']}=={pkg['version']} failed (exit {p.returncode}; "
                          f"no network or no registry?):\n    {tail}")
    got = sorted(os.listdir(dest))
    if pkg["file"] not in got:
        raise CorpusError(f"pip download {pkg['name']}=={pkg['version']} saved {', '.join(got) or 'nothing'}, "
                          f"not the pinned file {pkg['file']}")
    return os.path.join(dest, pkg["file"])


def archive(pkg: dict, cache: str | None = None, offline: bool = False, python: str | None = None,
            quiet: bool = False) -> str:
    """The verified archive (wheel or sdist) of one manifest package, downloaded if not cached.

    A cached file whose sha256 does not match is deleted and downloaded again; a fresh download
    that does not match raises CorpusError (and is deleted). ``offline`` never downloads.
    """
    folder = os.path.join(cache_dir(cache), "archives")
    path = os.path.join(folder, pkg["file"])
    if os.path.exists(path):
        got = sha256_file(path)
        if got == pkg["sha256"]:
            return path
        os.remove(path)
        _log(f"cached {pkg['file']} has sha256 {got}, not {pkg['sha256']}: deleted, fetching again", quiet)
    if offline:
        raise CorpusError(f"{pkg['file']} ({pkg['name']}=={pkg['version']}) is not in {folder} and --offline "
                          f"forbids downloading it (run: python3 bench/corpus.py fetch)")
    os.makedirs(folder, exist_ok=True)
    _log(f"downloading {pkg['name']}=={pkg['version']} with pip", quiet)
    tmp = tempfile.mkdtemp(prefix="download-", dir=folder)
    try:
        fresh = _pip_download(pkg, tmp, python or sys.executable)
        got = sha256_file(fresh)
        if got != pkg["sha256"]:
            raise _mismatch(pkg, fresh, got)
        os.replace(fresh, path)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    _log(f"{pkg['file']}: sha256 {got} verified", quiet)
    return path


def _wanted(name: str, include) -> bool:
    return any(name == inc or (inc.endswith("/") and name.startswith(inc)) for inc in include)


def _safe(name: str) -> bool:
    parts = name.replace("\\", "/").split("/")
    return not name.startswith(("/", "\\")) and ".." not in parts and ":" not in parts[0]


def unpack(pkg: dict, path: str, dest: str) -> list:
    """Extract the members of ``pkg['include']`` (folders end with '/') from a wheel or sdist into
    ``dest``; return the extracted names. Raises CorpusError if an include matches nothing."""
    include = pkg["include"]
    out = []
    if path.endswith((".whl", ".zip")):
        with zipfile.ZipFile(path) as zf:
            for info in zf.infolist():
                if info.is_dir() or not _wanted(info.filename, include):
                    continue
                if not _safe(info.filename):
                    raise CorpusError(f"{os.path.basename(path)}: unsafe member name {info.filename!r}")
                target = os.path.join(dest, *info.filename.split("/"))
                os.makedirs(os.path.dirname(target), exist_ok=True)
                with zf.open(info) as src, open(target, "wb") as dst:  # zipfile checks each member's CRC
                    shutil.copyfileobj(src, dst)
                out.append(info.filename)
    else:
        with tarfile.open(path) as tf:  # an sdist: NAME-VERSION/... (include names carry that prefix)
            for member in tf.getmembers():
                if not member.isfile() or not _wanted(member.name, include):
                    continue
                if not _safe(member.name):
                    raise CorpusError(f"{os.path.basename(path)}: unsafe member name {member.name!r}")
                target = os.path.join(dest, *member.name.split("/"))
                os.makedirs(os.path.dirname(target), exist_ok=True)
                src = tf.extractfile(member)
                with src, open(target, "wb") as dst:
                    shutil.copyfileobj(src, dst)
                out.append(member.name)
    missing = [inc for inc in include if not any(_wanted(n, [inc]) for n in out)]
    if missing:
        raise CorpusError(f"{os.path.basename(path)} has no {', '.join(missing)} (bench/corpus.json 'include')")
    return out


def _count(root: str):
    files = lines = 0
    for d, dirs, names in os.walk(root):
        dirs[:] = [x for x in dirs if x != "__pycache__"]
        for f in names:
            if f.endswith(".py"):
                with open(os.path.join(d, f), "rb") as fh:
                    data = fh.read()
                files += 1
                lines += data.count(b"\n") + (1 if data and not data.endswith(b"\n") else 0)
    return files, lines


def _stamp(spec: dict) -> list:
    return [{"name": p["name"], "version": p["version"], "file": p["file"], "sha256": p["sha256"],
             "include": p["include"]} for p in spec["packages"]]


def fetch(name: str = "models", cache: str | None = None, offline: bool = False, python: str | None = None,
          quiet: bool = False, manifest: dict | None = None) -> str:
    """Make corpus ``name`` of the manifest available and return its root folder.

    Downloads what is missing (``pip download --no-deps``, the pinned version), verifies every
    archive's sha256, unpacks the ``include`` members once into ``CACHE/<name>/`` and checks the
    number of ``.py`` files and lines against the manifest. An unpacked tree is reused only if it
    was made from exactly the pinned files. Raises CorpusError on any failure.
    """
    manifest = manifest or load_manifest()
    spec = manifest["corpora"].get(name)
    if spec is None:
        raise CorpusError(f"no corpus {name!r} in bench/corpus.json (have: {', '.join(sorted(manifest['corpora']))})")
    cache = cache_dir(cache)
    archives = [archive(p, cache, offline, python, quiet) for p in spec["packages"]]
    root = os.path.join(cache, name)
    want = _stamp(spec)
    try:
        with open(os.path.join(root, STAMP), encoding="utf-8") as fh:
            if json.load(fh) == want:
                return root
    except (OSError, ValueError):
        pass
    os.makedirs(cache, exist_ok=True)
    tmp = tempfile.mkdtemp(prefix=f"{name}-", dir=cache)
    try:
        for pkg, path in zip(spec["packages"], archives):
            unpack(pkg, path, tmp)
        files, lines = _count(tmp)
        if (spec.get("files"), spec.get("lines")) not in ((None, None), (files, lines)):
            raise CorpusError(f"corpus {name}: unpacked {files} .py files, {lines} lines; bench/corpus.json says "
                              f"{spec.get('files')} files, {spec.get('lines')} lines")
        with open(os.path.join(tmp, STAMP), "w", encoding="utf-8") as fh:
            json.dump(want, fh, indent=1)
        if os.path.exists(root):
            shutil.rmtree(root)
        try:
            os.replace(tmp, root)
        except OSError:  # another process unpacked it meanwhile: use theirs if it is the pinned one
            with open(os.path.join(root, STAMP), encoding="utf-8") as fh:
                if json.load(fh) != want:
                    raise
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    _log(f"{name}: {files} files, {lines} lines unpacked into {root}", quiet)
    return root


def describe(name: str = "models", manifest: dict | None = None) -> str:
    """One line naming the pinned distributions of a corpus, for benchmark reports."""
    manifest = manifest or load_manifest()
    pkgs = manifest["corpora"][name]["packages"]
    return ", ".join(f"{p['name']} {p['version']} ({p['file']}, sha256 {p['sha256'][:12]}...)" for p in pkgs)


def main(argv=None) -> int:
    """Command line: ``fetch [NAME...]`` (the default) or ``list``."""
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("command", nargs="?", default="fetch", choices=["fetch", "list"])
    ap.add_argument("names", nargs="*", help="corpora to fetch (default: all in bench/corpus.json)")
    ap.add_argument("--cache", help=f"cache folder (default ${CACHE_ENV} or bench/.corpus)")
    ap.add_argument("--offline", action="store_true", help="use only cached archives; never download")
    ap.add_argument("--quiet", action="store_true")
    args = ap.parse_args(argv)
    manifest = load_manifest()
    names = args.names or sorted(manifest["corpora"])
    if args.command == "list":
        for name in names:
            spec = manifest["corpora"][name]
            root = os.path.join(cache_dir(args.cache), name)
            print(f"{name}: {spec.get('files')} files, {spec.get('lines')} lines -> {root}")
            for p in spec["packages"]:
                print(f"  {p['name']}=={p['version']}  {p['file']}  sha256={p['sha256']}  "
                      f"include={','.join(p['include'])}")
        return 0
    try:
        for name in names:
            print(fetch(name, args.cache, args.offline, quiet=args.quiet, manifest=manifest))
    except CorpusError as e:
        print(f"corpus: error: {e}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
