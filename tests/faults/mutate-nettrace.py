#!/usr/bin/env python3
"""Damage a real V4/V5 .nettrace the way a broken copy or tee would, keeping
the container valid: the objects are parsed and written back with fresh
alignment padding, so only the block order changes.

usage: mutate-nettrace.py IN OUT repeat|swap|drop|points|points-seq|bad-end|list [N]
  repeat N  the N-th EventBlock (0-based) appears twice in a row
  swap N    EventBlocks N and N+1 trade places
  drop N    EventBlock N is left out
  drop-stack N  StackBlock N is left out
  count     print how many EventBlocks and StackBlocks there are
  points [N]      an SPBlock naming no thread before every StackBlock and
                  EventBlock but the first: a region per block for the split
                  reader, where a real capture has one or two points, mostly
                  at its end; with N, only the objects that fit in N bytes
  points-seq [N]  the same, each point a copy of the capture's last one: its
                  sequence numbers are ahead of the events after it (the
                  split reader's "read serially" path)
  bad-end N the N-th object of any type (0 is the Trace header object) ends
            with 07 where its end-of-object tag 06 belongs
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


def write(head, objs, tail, bad_end=None):
    out = bytearray(head)
    for i, (_, name, ver, minver, size, body) in enumerate(objs):
        end = b"\x07" if i == bad_end else b"\x06"
        out += b"\x05\x05\x01" + struct.pack("<iiI", ver, minver, len(name)) + name + b"\x06"
        if size is None:
            out += body + end
            continue
        out += struct.pack("<i", len(body))
        out += b"\x00" * (-len(out) % 4)
        out += body + end
    return bytes(out + tail)


def points(objs, copy, limit):
    """objs with a sequence point before each Stack/EventBlock but the first,
    cut after the last object that fits in limit bytes (0: no limit)."""
    last = [o for o in objs if o[1] == b"SPBlock"]
    if copy and not last:
        return None
    # Version 2, as the runtime writes SPBlocks; timestamp 0, no thread.
    sp = last[-1] if copy else (0, b"SPBlock", 2, 2, 12, b"\x00" * 12)
    out, size, blocks = [], 32, 0
    for o in objs:
        cost = len(o[1]) + 24 + len(o[5])       # framing, size, padding, end tags
        point = o[1] in (b"StackBlock", b"EventBlock") and blocks > 0
        if point:
            cost += len(sp[1]) + 24 + len(sp[5])
        if limit and size + cost + 1 > limit:
            break
        if point:
            out.append(sp)
        out.append(o)
        size += cost
        blocks += o[1] != b"Trace"
    return out


def main():
    src, dst, op = sys.argv[1], sys.argv[2], sys.argv[3]
    n = int(sys.argv[4]) if len(sys.argv) > 4 else 0
    head, objs, tail = parse(open(src, "rb").read())
    events = [i for i, o in enumerate(objs) if o[1] == b"EventBlock"]
    if op == "list":
        for o in objs:
            print(o[0], o[1].decode(), len(o[5]))
        return
    if op in ("points", "points-seq"):
        objs = points(objs, op == "points-seq", n)
        if objs is None:
            sys.exit("%s: no SPBlock to copy" % src)
        open(dst, "wb").write(write(head, objs, tail[:1]))
        return
    if op == "bad-end":
        open(dst, "wb").write(write(head, objs, tail, bad_end=n))
        return
    stacks = [i for i, o in enumerate(objs) if o[1] == b"StackBlock"]
    if op == "count":
        print(len(events), len(stacks))
        return
    if op == "drop-stack":
        del objs[stacks[n]]
        open(dst, "wb").write(write(head, objs, tail))
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
