// The mesh of prisms.geo cut into 2 partitions (METIS), with the partition topology Gmsh
// writes in $PartitionedEntities.
Include "prisms.geo";
Mesh 3;
PartitionMesh 2;
