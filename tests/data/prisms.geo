// Two unit squares side by side, meshed with triangles and extruded in 2 layers of prisms.
// Physical groups: volume x in [0,1] is material 100 ("left"), x in [1,2] material 200
// ("right"); the bottom z = 0 is tagged 10, the top z = 1 20, the four sides 30.
// make-meshes.sh writes the .msh files of t203-gmsh from it and from prisms-part.geo.
lc = 0.5;
Point(1) = {0, 0, 0, lc};
Point(2) = {1, 0, 0, lc};
Point(3) = {2, 0, 0, lc};
Point(4) = {2, 1, 0, lc};
Point(5) = {1, 1, 0, lc};
Point(6) = {0, 1, 0, lc};
Line(1) = {1, 2};
Line(2) = {2, 3};
Line(3) = {3, 4};
Line(4) = {4, 5};
Line(5) = {5, 6};
Line(6) = {6, 1};
Line(7) = {2, 5};
Curve Loop(1) = {1, 7, 5, 6};
Plane Surface(1) = {1};
Curve Loop(2) = {2, 3, 4, -7};
Plane Surface(2) = {2};
// Recombine keeps the prisms of the extrusion (without it Gmsh cuts them into tetrahedra).
left[] = Extrude {0, 0, 1} { Surface{1}; Layers{2}; Recombine; };
right[] = Extrude {0, 0, 1} { Surface{2}; Layers{2}; Recombine; };
Physical Volume("left", 100) = {left[1]};
Physical Volume("right", 200) = {right[1]};
Physical Surface("bottom", 10) = {1, 2};
Physical Surface("top", 20) = {left[0], right[0]};
Physical Surface("sides", 30) = {left[2], left[4], left[5], right[2], right[3], right[4]};
