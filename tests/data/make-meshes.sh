#!/bin/sh
# Write the Gmsh files of tests/t203-gmsh and tests/t207-gmsh-shapes from the .geo files of this
# folder (run here, with the gmsh program; the outputs are committed, so the tests do not need
# gmsh). The *-part.geo files mesh and partition by themselves: -save writes their result (-2 or
# -3 would mesh them again).
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
# Quadrangles: 4-node (ASCII and binary), 8-node (binary), 9-node (2.2), partitioned.
gmsh -2 -format msh41 quads.geo -o quads.msh
gmsh -2 -format msh41 -bin quads.geo -o quads-bin.msh
gmsh -2 -order 2 -setnumber Mesh.SecondOrderIncomplete 1 -format msh41 -bin quads.geo \
  -o quads8-bin.msh
gmsh -2 -order 2 -format msh22 quads.geo -o quads9.msh
gmsh -save -format msh41 quads-part.geo -o quads-part.msh
# Tetrahedra: the cube with 4 nodes (ASCII and binary), 10 nodes (2.2), partitioned; the ball
# with 4 nodes and 10 nodes (binary).
gmsh -3 -format msh41 tets-cube.geo -o tets-cube.msh
gmsh -3 -format msh41 -bin tets-cube.geo -o tets-cube-bin.msh
gmsh -3 -order 2 -format msh22 tets-cube.geo -o tets-cube10.msh
gmsh -save -format msh41 tets-part.geo -o tets-part.msh
gmsh -3 -format msh41 tets-ball.geo -o tets-ball.msh
gmsh -3 -order 2 -format msh41 -bin tets-ball.geo -o tets-ball10-bin.msh
# The unit cube of two materials (z < 1/2 and z > 1/2), 4-node tetrahedra (2.2).
gmsh -3 -format msh22 tets-layers.geo -o tets-layers.msh
