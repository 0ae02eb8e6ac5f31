// The mesh of quads.geo cut into 2 partitions.
Include "quads.geo";
Mesh 2;
PartitionMesh 2;
