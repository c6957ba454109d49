#!/usr/bin/env python3
# The id of a portable PDB (#Pdb stream's first 16 bytes), as a GUID string:
# an oracle independent of perfpipe's PE reader (it reads the .pdb, not the .dll).
import struct, sys, uuid
b = open(sys.argv[1], 'rb').read()
assert b[:4] == b'BSJB', 'not a portable PDB'
vlen = struct.unpack_from('<I', b, 12)[0]
off = 16 + vlen + 2
n = struct.unpack_from('<H', b, off)[0]
off += 2
for _ in range(n):
    so, size = struct.unpack_from('<II', b, off)
    off += 8
    end = b.index(b'\0', off)
    name = b[off:end].decode()
    off = (end + 4) & ~3
    if name == '#Pdb':
        print(uuid.UUID(bytes_le=b[so:so + 16]))
        sys.exit(0)
sys.exit('no #Pdb stream')
