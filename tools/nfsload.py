#!/usr/bin/env python3
# nfsload.py - writes loadfiles/nfs.txt, the NFSv3 loadfile dbench ships.
#
# One NFSv3 client working in its own directory of an export, one session a
# pass, every line one NFS procedure with the nfsstat3 it returns.  The mix
# of procedures follows the published SPECsfs2008 NFSv3 mix (GETATTR 26%,
# LOOKUP 24%, READ 18%, ACCESS 11%, WRITE 10%, SETATTR 4%, READDIRPLUS 2%,
# CREATE, REMOVE, FSSTAT 1% each, ...), acting on a small project tree
# (source, headers, documents, build output) the way a developer's client
# does: look up and revalidate, read files in 32 KiB pieces, write them
# UNSTABLE and COMMIT, save atomically (write a temporary file, RENAME3 it
# over the original), create and remove build output, list directories,
# make and read symlinks and hard links.  Every expected status follows from
# a model of the tree, so a correct server gives no mismatch.  A pass starts
# with Deltree of the client directory and ends with the tree removed.
#
# The output depends only on the seed: `tools/nfsload.py > loadfiles/nfs.txt`
# makes the shipped file again, byte for byte (tests/cli/nfs.bats checks).
#
# Copyright (C) 2026 The dbench authors.  GPL-3.0-or-later.

import random
import sys

SEED = 20260315
OPS = 1500          # operations in the main phase
CHUNK = 32768       # READ3/WRITE3 size, as a client with rsize=wsize=32k

OK = "0x00000000"
NOENT = "0x00000002"
EXIST = "0x00000011"
ROOT = "/clients/client1"

# SPECsfs2008 NFSv3 op mix, in percent; LINK/SYMLINK/READLINK stand in for
# the rarer ops.
MIX = [
    ("getattr", 26), ("lookup", 24), ("read", 18), ("access", 11),
    ("write", 10), ("setattr", 4), ("readdirplus", 2), ("create", 1),
    ("remove", 1), ("fsstat", 1), ("save", 1), ("symlink", 0.5),
    ("link", 0.5),
]


class Tree:
    """The client's directory tree: what exists, and how big files are."""

    def __init__(self):
        self.dirs = []       # paths of directories
        self.files = {}      # path -> size
        self.links = {}      # symlink path -> its text
        self.counter = 0

    def new_name(self, directory, prefix, suffix):
        self.counter += 1
        return f"{directory}/{prefix}{self.counter:04d}{suffix}"


class Gen:
    def __init__(self, seed):
        self.rng = random.Random(seed)
        self.lines = []
        self.tree = Tree()

    def op(self, *fields):
        self.lines.append(" ".join(str(f) for f in fields))

    def q(self, path):
        return f'"{path}"'

    # ---- small sequences ----

    def write_file(self, path, size, stable=0):
        off = 0
        while off < size:
            n = min(CHUNK, size - off)
            self.op("WRITE3", self.q(path), off, n, stable, OK)
            off += n
        if stable == 0 and size:
            self.op("COMMIT3", self.q(path), 0, 0, OK)

    def create_file(self, path, size):
        self.op("LOOKUP3", self.q(path), NOENT)
        self.op("CREATE3", self.q(path), 1, OK)
        self.write_file(path, size)
        self.op("GETATTR3", self.q(path), OK)
        self.tree.files[path] = size

    def any_file(self):
        return self.rng.choice(sorted(self.tree.files))

    def any_dir(self):
        return self.rng.choice(self.tree.dirs)

    def file_size(self):
        # mostly small source files, some larger documents
        r = self.rng.random()
        if r < 0.6:
            return self.rng.randrange(512, 16384)
        if r < 0.9:
            return self.rng.randrange(16384, 131072)
        return self.rng.randrange(131072, 524288)

    # ---- the mix ----

    def do_getattr(self):
        if self.rng.random() < 0.8:
            self.op("GETATTR3", self.q(self.any_file()), OK)
        else:
            self.op("GETATTR3", self.q(self.any_dir()), OK)

    def do_lookup(self):
        if self.rng.random() < 0.8:
            self.op("LOOKUP3", self.q(self.any_file()), OK)
        else:
            # a compiler or shell probing for names that are not there
            name = self.tree.new_name(self.any_dir(), "probe", ".h")
            self.op("LOOKUP3", self.q(name), NOENT)

    def do_read(self):
        path = self.any_file()
        size = self.tree.files[path]
        if size == 0:
            self.op("READ3", self.q(path), 0, CHUNK, OK)
            return
        if self.rng.random() < 0.5:
            # the whole file, front to back
            self.op("ACCESS3", self.q(path), 63, 13, OK)
            off = 0
            while off < size:
                self.op("READ3", self.q(path), off, CHUNK, OK)
                off += CHUNK
        else:
            off = self.rng.randrange(0, size) // 4096 * 4096
            self.op("READ3", self.q(path), off, CHUNK, OK)

    def do_access(self):
        if self.rng.random() < 0.7:
            self.op("ACCESS3", self.q(self.any_file()), 63, 13, OK)
        else:
            self.op("ACCESS3", self.q(self.any_dir()), 63, 31, OK)

    def do_write(self):
        path = self.any_file()
        size = self.tree.files[path]
        if self.rng.random() < 0.5:
            # append
            n = self.rng.randrange(100, CHUNK)
            self.op("WRITE3", self.q(path), size, n, 0, OK)
            self.tree.files[path] = size + n
        else:
            # rewrite a block
            off = self.rng.randrange(0, max(size, 1)) // 4096 * 4096
            n = self.rng.choice([4096, 8192, CHUNK])
            self.op("WRITE3", self.q(path), off, n, 0, OK)
            self.tree.files[path] = max(size, off + n)
        if self.rng.random() < 0.5:
            self.op("COMMIT3", self.q(path), 0, 0, OK)
        self.op("GETATTR3", self.q(path), OK)

    def do_setattr(self):
        path = self.any_file()
        # chmod 0644 / 0664 (modes are decimal numbers in a loadfile)
        self.op("SETATTR3", self.q(path), self.rng.choice([420, 436]), OK)

    def do_readdirplus(self):
        directory = self.any_dir()
        self.op("ACCESS3", self.q(directory), 63, 31, OK)
        self.op("READDIRPLUS3", self.q(directory), OK)

    def do_create(self):
        directory = self.rng.choice(["build", "build", "src"])
        path = self.tree.new_name(f"{ROOT}/{directory}", "obj", ".o")
        self.create_file(path, self.file_size())

    def do_remove(self):
        candidates = [p for p in sorted(self.tree.files) if p.endswith(".o")]
        if not candidates:
            candidates = sorted(self.tree.files)
        if len(candidates) < 2:
            return
        path = self.rng.choice(candidates)
        self.op("REMOVE3", self.q(path), OK)
        self.op("LOOKUP3", self.q(path), NOENT)
        del self.tree.files[path]

    def do_fsstat(self):
        self.op("FSSTAT3", OK)

    def do_save(self):
        # an editor's atomic save: temp file, write, commit, rename over
        path = self.any_file()
        directory = path.rsplit("/", 1)[0]
        tmp = self.tree.new_name(directory, ".save", ".tmp")
        size = self.file_size()
        self.op("LOOKUP3", self.q(tmp), NOENT)
        self.op("CREATE3", self.q(tmp), 1, OK)
        self.write_file(tmp, size)
        self.op("SETATTR3", self.q(tmp), 420, OK)
        self.op("RENAME3", self.q(tmp), self.q(path), OK)
        self.op("GETATTR3", self.q(path), OK)
        self.op("LOOKUP3", self.q(tmp), NOENT)
        self.tree.files[path] = size

    def do_symlink(self):
        target = self.any_file()
        link = self.tree.new_name(f"{ROOT}/build", "link", "")
        text = target.rsplit("/", 1)[1]
        self.op("LOOKUP3", self.q(link), NOENT)
        self.op("SYMLINK3", self.q(link), self.q(text), OK)
        self.op("READLINK3", self.q(link), OK)
        self.op("SYMLINK3", self.q(link), self.q(text), EXIST)
        self.tree.links[link] = text

    def do_link(self):
        target = self.any_file()
        link = self.tree.new_name(f"{ROOT}/build", "hard", ".o")
        self.op("LINK3", self.q(link), self.q(target), OK)
        self.op("GETATTR3", self.q(link), OK)
        self.tree.files[link] = self.tree.files[target]

    # ---- a pass ----

    def header(self):
        self.op("# dbench NFSv3 loadfile made by: tools/nfsload.py (seed %d)" % SEED)
        self.op("# (do not edit; `tools/nfsload.py > loadfiles/nfs.txt` makes it again)")
        self.op("#")
        self.op("# One NFSv3 client in its own directory of the export, one session a")
        self.op("# pass: look-ups, attribute revalidation, 32 KiB reads and UNSTABLE")
        self.op("# writes with COMMIT3, atomic saves (temporary file + RENAME3), build")
        self.op("# output created and removed, directory listings, links; the op mix")
        self.op("# follows SPECsfs2008's NFSv3 mix.  Every status follows from a model")
        self.op("# of the tree.  Run it with")
        self.op("#   dbench -B nfs --server HOST --export /EXPORT -c nfs.txt N")
        self.op("# Arguments of each operation: dbench-loadfile(5).")
        self.op("")

    def setup(self):
        self.op("Deltree", self.q(ROOT), OK)
        self.op("MKDIR3", self.q("/clients"), "*")
        self.op("FSINFO3", OK)
        self.op("PATHCONF3", OK)
        self.op("FSSTAT3", OK)
        self.op("LOOKUP3", self.q(ROOT), NOENT)
        self.op("MKDIR3", self.q(ROOT), OK)
        self.op("GETATTR3", self.q(ROOT), OK)
        self.op("MKDIR3", self.q(ROOT), EXIST)
        self.tree.dirs.append(ROOT)
        for name in ["src", "include", "doc", "build"]:
            path = f"{ROOT}/{name}"
            self.op("LOOKUP3", self.q(path), NOENT)
            self.op("MKDIR3", self.q(path), OK)
            self.op("ACCESS3", self.q(path), 63, 31, OK)
            self.tree.dirs.append(path)
        for directory, prefix, suffix, count in [("src", "file", ".c", 14),
                                                 ("include", "head", ".h", 8),
                                                 ("doc", "text", ".txt", 4)]:
            for _ in range(count):
                path = self.tree.new_name(f"{ROOT}/{directory}", prefix, suffix)
                self.create_file(path, self.file_size())
        self.op("READDIRPLUS3", self.q(f"{ROOT}/src"), OK)

    def main(self):
        names = [m[0] for m in MIX]
        weights = [m[1] for m in MIX]
        start = len(self.lines)
        while len(self.lines) - start < OPS:
            kind = self.rng.choices(names, weights)[0]
            getattr(self, "do_" + kind)()

    def teardown(self):
        for link in sorted(self.tree.links):
            self.op("REMOVE3", self.q(link), OK)
        for path in sorted(self.tree.files):
            self.op("REMOVE3", self.q(path), OK)
        for directory in reversed(self.tree.dirs):
            self.op("READDIRPLUS3", self.q(directory), OK)
            self.op("RMDIR3", self.q(directory), OK)
        self.op("LOOKUP3", self.q(ROOT), NOENT)
        self.op("RMDIR3", self.q(ROOT), NOENT)


def main():
    g = Gen(SEED)
    g.header()
    g.setup()
    g.main()
    g.teardown()
    sys.stdout.write("\n".join(g.lines) + "\n")


if __name__ == "__main__":
    main()
