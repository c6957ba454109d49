#!/usr/bin/env python3
"""Damage a real V4/V5 .nettrace the way a broken copy or tee would, keeping
the container valid: the objects are parsed and written back with fresh
alignment padding, so only the block order changes.

usage: mutate-nettrace.py IN OUT repeat|swap|drop|list [N]
  repeat N  the N-th EventBlock (0-based) appears twice in a row
  swap N    EventBlocks N and N+1 trade places
  drop N    EventBlock N is left out
  list      print each object: offset, type, size (to choose N)
"""
import struct
import sys


def parse(data):
    head = data[:32]
    assert head[:8] == b"Nettrace" and head[12:32] == b"!FastSerialization.1", "not V4/V5"
    at, objs = 32, []
    while True:
        if data[at] == 1:
            return head, objs, data[at:]
        assert data[at:at + 3] == b"\x05\x05\x01", "object expected at %d" % at
        ver, minver, nlen = struct.unpack_from("<iiI", data, at + 3)
        name = data[at + 15:at + 15 + nlen]
        assert data[at + 15 + nlen] == 6
        start = at
        at += 15 + nlen + 1
        if name == b"Trace":
            body, at = data[at:at + 48], at + 48
            assert data[at] == 6
            at += 1
            objs.append((start, name, ver, minver, None, body))
            continue
        (size,) = struct.unpack_from("<i", data, at)
        at = (at + 4 + 3) & ~3
        body = data[at:at + size]
        at += size
        assert data[at] == 6, "end of object expected at %d" % at
        at += 1
        objs.append((start, name, ver, minver, size, body))


def write(head, objs, tail):
    out = bytearray(head)
    for _, name, ver, minver, size, body in objs:
        out += b"\x05\x05\x01" + struct.pack("<iiI", ver, minver, len(name)) + name + b"\x06"
        if size is None:
            out += body + b"\x06"
            continue
        out += struct.pack("<i", len(body))
        out += b"\x00" * (-len(out) % 4)
        out += body + b"\x06"
    return bytes(out + tail)


def main():
    src, dst, op = sys.argv[1], sys.argv[2], sys.argv[3]
    n = int(sys.argv[4]) if len(sys.argv) > 4 else 0
    head, objs, tail = parse(open(src, "rb").read())
    events = [i for i, o in enumerate(objs) if o[1] == b"EventBlock"]
    if op == "list":
        for o in objs:
            print(o[0], o[1].decode(), len(o[5]))
        return
    k = events[n]
    if op == "repeat":
        objs.insert(k + 1, objs[k])
    elif op == "swap":
        j = events[n + 1]
        objs[k], objs[j] = objs[j], objs[k]
    elif op == "same":
        pass
    elif op == "drop":
        del objs[k]
    else:
        sys.exit("unknown operation " + op)
    open(dst, "wb").write(write(head, objs, tail))


main()
