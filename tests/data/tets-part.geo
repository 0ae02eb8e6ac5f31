// The mesh of tets-cube.geo cut into 2 partitions.
Include "tets-cube.geo";
Mesh 3;
PartitionMesh 2;
