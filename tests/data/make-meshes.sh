#!/bin/sh
# Write the Gmsh files of tests/t203-gmsh from the .geo files of this folder (run here, with the
# gmsh program; the outputs are committed, so the tests do not need gmsh). prisms-part.geo
# meshes and partitions by itself: -save writes its result (-3 would mesh it again).
set -e
gmsh -3 -format msh41 prisms.geo -o prisms.msh
gmsh -3 -format msh41 -bin prisms.geo -o prisms-bin.msh
gmsh -save -format msh41 prisms-part.geo -o prisms-part.msh
gmsh -save -format msh41 -setnumber Mesh.PartitionSplitMeshFiles 1 prisms-part.geo \
  -o prisms-split.msh
gmsh -save -format msh41 -bin -setnumber Mesh.PartitionSplitMeshFiles 1 \
  -setnumber Mesh.PartitionCreateGhostCells 1 prisms-part.geo -o prisms-ghost.msh
# The binary file in the other byte order.
python3 msh-big-endian.py prisms-bin.msh prisms-bin-be.msh
