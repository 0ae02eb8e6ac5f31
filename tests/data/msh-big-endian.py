#!/usr/bin/env python3
"""Write a binary MSH 4.1 file in the other byte order: python3 msh-big-endian.py IN OUT.

Converts the files that make-meshes.sh writes from prisms.geo (sections $MeshFormat,
$PhysicalNames, $Entities, $Nodes without parametric nodes, $Elements of points, lines,
triangles, quadrangles and prisms), so that t203-gmsh reads a big-endian file on a
little-endian host."""
import struct
import sys

data = open(sys.argv[1], 'rb').read()
out = bytearray()
pos = 0


def line():
    global pos
    end = data.index(b'\n', pos)
    text = data[pos:end + 1]
    pos = end + 1
    out.extend(text)
    return text.strip()


def swap(fmt, n=1):
    global pos
    values = struct.unpack_from('<' + fmt * n, data, pos)
    pos += struct.calcsize('<' + fmt) * n
    out.extend(struct.pack('>' + fmt * n, *values))
    return values


NODES = {1: 2, 2: 3, 3: 4, 6: 6, 15: 1}
while pos < len(data):
    section = line()
    if section == b'$MeshFormat':
        line()
        swap('i')
    elif section == b'$Entities':
        counts = swap('Q', 4)
        for dim in range(4):
            for _ in range(counts[dim]):
                swap('i')
                swap('d', 3 if dim == 0 else 6)
                swap('i', swap('Q')[0])
                if dim:
                    swap('i', swap('Q')[0])
    elif section == b'$Nodes':
        nblock = swap('Q', 4)[0]
        for _ in range(nblock):
            parametric = swap('i', 3)[2]
            assert parametric == 0
            n = swap('Q')[0]
            swap('Q', n)
            swap('d', 3 * n)
    elif section == b'$Elements':
        nblock = swap('Q', 4)[0]
        for _ in range(nblock):
            etype = swap('i', 3)[2]
            n = swap('Q')[0]
            swap('Q', n * (1 + NODES[etype]))
open(sys.argv[2], 'wb').write(out)
