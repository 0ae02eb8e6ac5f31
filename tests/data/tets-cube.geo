// The unit cube in tetrahedra. Physical groups: the volume is material 5 ("cube"); the faces
// x = 0, x = 1, y = 0, y = 1, z = 0 are tagged 11..15; the top z = 1 has no physical group.
// make-meshes.sh writes the .msh files of t207-gmsh-shapes from it: 4-node (ASCII and binary),
// 10-node, and partitioned.
SetFactory("OpenCASCADE");
Box(1) = {0, 0, 0, 1, 1, 1};
MeshSize{ PointsOf{ Volume{1}; } } = 0.5;
Physical Volume("cube", 5) = {1};
Physical Surface("x0", 11) = {1};
Physical Surface("x1", 12) = {2};
Physical Surface("y0", 13) = {3};
Physical Surface("y1", 14) = {4};
Physical Surface("z0", 15) = {5};
