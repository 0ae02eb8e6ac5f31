// The unit ball in tetrahedra, its sphere tagged 1; the volume is material 2 ("ball").
// make-meshes.sh writes it with 4-node and with 10-node tetrahedra (edge nodes on the sphere).
SetFactory("OpenCASCADE");
Sphere(1) = {0, 0, 0, 1};
MeshSize{ PointsOf{ Volume{1}; } } = 0.6;
Physical Volume("ball", 2) = {1};
Physical Surface("sphere", 1) = {1};
