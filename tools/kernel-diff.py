#!/usr/bin/env python3
"""Which kernels two builds compiled differently: the device code each executable carries,
kernel by kernel. Run it on the builds of an A/B before carrying them to a GPU: two builds
should differ only in the kernels the change touches, and a baseline that is not what its
name says (a "HEAD" that carries a patch) shows at once.

Reads the .nv_fatbin section of each ELF file (or a .ptx file), its PTX and its cubins
(zstd-compressed entries through the `zstd` command), and compares every kernel's PTX body
(whitespace, comments, line and debug records left out) and every kernel's SASS bytes (each
cubin's .text.<kernel> section), per architecture.

Usage: tools/kernel-diff.py A B [--show N]
  A, B  executables or objects with device code, or PTX files (nvcc -ptx); against a PTX file,
        only the kernels it holds are compared
Exit status: 0 when no kernel differs, 1 when some do, 2 when a file cannot be read.
"""
import argparse
import re
import shutil
import struct
import subprocess
import sys

FATBIN_MAGIC = 0xBA55ED50
KIND_PTX, KIND_ELF = 1, 2
FLAG_COMPRESSED_LZ = 0x2000
FLAG_COMPRESSED_ZSTD = 0x8000


class Unreadable(Exception):
    pass


def elf_sections(blob):
    """{name: bytes} of a 64-bit little-endian ELF image."""
    if blob[:4] != b"\x7fELF" or blob[4] != 2 or blob[5] != 1:
        raise Unreadable("not a 64-bit little-endian ELF file")
    shoff, = struct.unpack_from("<Q", blob, 0x28)
    shentsize, shnum, shstrndx = struct.unpack_from("<HHH", blob, 0x3A)
    if shoff == 0 or shnum == 0 or shoff + shnum * shentsize > len(blob):
        raise Unreadable("ELF section table missing or cut short")
    headers = []
    for i in range(shnum):
        name, kind, _, _, offset, size = struct.unpack_from("<IIQQQQ", blob, shoff + i * shentsize)
        headers.append((name, kind, offset, size))
    names_offset = headers[shstrndx][2]
    sections = {}
    for name, kind, offset, size in headers:
        end = blob.index(b"\0", names_offset + name)
        label = blob[names_offset + name:end].decode(errors="replace")
        sections[label] = b"" if kind == 8 else blob[offset:offset + size]  # 8: SHT_NOBITS
    return sections


def decompress(payload, flags, size):
    if flags & FLAG_COMPRESSED_ZSTD:
        if shutil.which("zstd") is None:
            raise Unreadable("a zstd-compressed fatbin entry, and no zstd command here")
        # The entry is padded past the zstd frame: zstd decodes the frame, then complains.
        out = subprocess.run(["zstd", "-d", "-c"], input=payload, capture_output=True).stdout
        if size and len(out) != size:
            raise Unreadable(f"zstd gave {len(out)} bytes of an entry of {size}")
        return out
    if flags & FLAG_COMPRESSED_LZ:
        raise Unreadable("a fatbin entry in nvcc's older LZ compression (build with -Xfatbin=-compress-all=false "
                         "or a CUDA 12.8+ nvcc)")
    return payload


def fatbin_entries(section):
    """(kind, arch, bytes) of every entry of every fatbin in the section."""
    pos = 0
    while pos + 16 <= len(section):
        magic, _, header_size, fat_size = struct.unpack_from("<IHHQ", section, pos)
        if magic != FATBIN_MAGIC:
            pos += 8  # fatbins are 8-byte aligned within the section
            continue
        entry, end = pos + header_size, pos + header_size + fat_size
        while entry + 64 <= end:
            kind, _, entry_header, size = struct.unpack_from("<HHIQ", section, entry)
            arch, = struct.unpack_from("<I", section, entry + 28)
            flags, = struct.unpack_from("<Q", section, entry + 40)
            full_size, = struct.unpack_from("<Q", section, entry + 56)
            payload = section[entry + entry_header:entry + entry_header + size]
            yield kind, arch, decompress(payload, flags, full_size)
            entry += entry_header + size
        pos = end


def add(into, form, arch, name, code):
    # A kernel compiled in several translation units (CUB's EmptyKernel) appears once per unit,
    # in link order: the n-th copy of one build meets the n-th of the other.
    n = 0
    while (form, arch, name, n) in into:
        n += 1
    into[(form, arch, name, n)] = code


def ptx_kernels(text, arch, into):
    if arch == 0:
        target = re.search(r"^\s*\.target\s+sm_(\d+)", text, re.M)
        arch = int(target.group(1)) if target else 0
    lines = (" ".join(line.split("//", 1)[0].split()) for line in text.splitlines())
    kept = [l for l in lines if l and not l.startswith((".loc", ".file"))]
    body = "\n".join(kept)
    body = body.split("\n.section", 1)[0]  # debug sections after the last kernel
    for part in re.split(r"\n(?=(?:\.visible |\.weak )?\.entry )", body)[1:]:
        name = part.split("(", 1)[0].split()[-1]
        add(into, "ptx", arch, name, part)


def sass_kernels(cubin, arch, into):
    for name, code in elf_sections(cubin).items():
        if name.startswith(".text."):
            add(into, "sass", arch, name[len(".text."):], code)


def kernels(path):
    """({(form, arch, name, copy): code}, whether the file is PTX text)."""
    try:
        blob = open(path, "rb").read()
    except OSError as e:
        raise Unreadable(f"{path}: {e.strerror}")
    found = {}
    if blob[:4] != b"\x7fELF":
        ptx_kernels(blob.decode(errors="replace"), 0, found)
        if not found:
            raise Unreadable(f"{path}: neither an ELF file nor PTX with kernels")
        return found, True
    section = elf_sections(blob).get(".nv_fatbin")
    if not section:
        raise Unreadable(f"{path}: no .nv_fatbin section (no device code, or stripped of it)")
    for kind, arch, data in fatbin_entries(section):
        if kind == KIND_PTX:
            ptx_kernels(data.decode(errors="replace"), arch, found)
        elif kind == KIND_ELF:
            sass_kernels(data, arch, found)
    return found, False


def demangle(names):
    if not names or shutil.which("c++filt") is None:
        return names
    out = subprocess.run(["c++filt"], input="\n".join(names), capture_output=True, text=True).stdout
    return out.splitlines() if out.count("\n") >= len(names) - 1 else names


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("a")
    ap.add_argument("b")
    ap.add_argument("--show", type=int, default=10, help="differing kernels to name (default 10)")
    args = ap.parse_args()
    try:
        (a, a_is_ptx), (b, b_is_ptx) = kernels(args.a), kernels(args.b)
    except Unreadable as e:
        print(f"kernel-diff: {e}", file=sys.stderr)
        return 2
    status = 0
    for form in ("ptx", "sass"):
        keys_a = {k for k in a if k[0] == form}
        keys_b = {k for k in b if k[0] == form}
        if not keys_a or not keys_b:
            continue  # SASS against a PTX file: nothing to compare
        # A PTX file is one translation unit of an executable that links many: compare its kernels.
        if a_is_ptx and not b_is_ptx:
            keys_b &= keys_a
        elif b_is_ptx and not a_is_ptx:
            keys_a &= keys_b
        common = keys_a & keys_b
        differ = sorted(k for k in common if a[k] != b[k])
        only_a, only_b = sorted(keys_a - keys_b), sorted(keys_b - keys_a)
        archs = ",".join(f"sm_{k}" if k else "sm_?" for k in sorted({k[1] for k in keys_a | keys_b}))
        print(f"{form} ({archs}): {len(common)} kernels in both, {len(common) - len(differ)} identical, "
              f"{len(differ)} differ; {len(only_a)} only in A, {len(only_b)} only in B")
        for label, keys in (("differs", differ), ("only in A", only_a), ("only in B", only_b)):
            shown = demangle([k[2] for k in keys[:args.show]])
            for name in shown:
                print(f"  {label}: {name[:200]}")
            if len(keys) > args.show:
                print(f"  {label}: ... {len(keys) - args.show} more")
        if differ or only_a or only_b:
            status = 1
    return status


if __name__ == "__main__":
    sys.exit(main())
