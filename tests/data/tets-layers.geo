// The unit cube in tetrahedra, in two layers: z < 1/2 is material 1 ("lower"), z > 1/2 material 2
// ("upper"), meshed conformingly across the interface z = 1/2, which has no physical group; the
// six outer faces are tagged 1 ("walls"). make-meshes.sh writes tets-layers.msh (4-node, format
// 2.2) from it: t504-cavity maps its materials to permittivities.
SetFactory("OpenCASCADE");
Box(1) = {0, 0, 0, 1, 1, 0.5};
Box(2) = {0, 0, 0.5, 1, 1, 0.5};
BooleanFragments{ Volume{1}; Delete; }{ Volume{2}; Delete; }
MeshSize{ PointsOf{ Volume{:}; } } = 0.3;
Physical Volume("lower", 1) = {1};
Physical Volume("upper", 2) = {2};
Physical Surface("walls", 1) = Abs(CombinedBoundary{ Volume{:}; });
