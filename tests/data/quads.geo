// A quarter of the annulus 1 <= r <= 2, 0 <= theta <= pi/2, as 2 (radially) x 4 structured
// quadrangles. Physical groups: the surface is material 7 ("ring"); the lines r = 1 are tagged 1,
// r = 2 tagged 2, theta = 0 tagged 3; the side theta = pi/2 has no physical group.
// make-meshes.sh writes the .msh files of t207-gmsh-shapes from it: 4-node, 8-node
// (Mesh.SecondOrderIncomplete) and 9-node quadrangles, whose edge nodes lie on the circles.
Point(1) = {0, 0, 0};
Point(2) = {1, 0, 0};
Point(3) = {2, 0, 0};
Point(4) = {0, 2, 0};
Point(5) = {0, 1, 0};
Line(1) = {2, 3};
Circle(2) = {3, 1, 4};
Line(3) = {4, 5};
Circle(4) = {5, 1, 2};
Curve Loop(1) = {1, 2, 3, 4};
Plane Surface(1) = {1};
Transfinite Curve{1, 3} = 3;
Transfinite Curve{2, 4} = 5;
Transfinite Surface{1};
Recombine Surface{1};
Physical Surface("ring", 7) = {1};
Physical Curve("inner", 1) = {4};
Physical Curve("outer", 2) = {2};
Physical Curve("bottom", 3) = {1};
