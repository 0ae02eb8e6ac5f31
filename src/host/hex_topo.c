/* The reference hexahedron's vertices, edges and faces (refel_hex.h). */
#include "refel_hex.h"

const double hex_vert_xi[HEX_NV][3] = {{-1, -1, -1}, {1, -1, -1}, {1, 1, -1}, {-1, 1, -1},
                                       {-1, -1, 1},  {1, -1, 1},  {1, 1, 1},  {-1, 1, 1}};
const int hex_edge_vert[HEX_NE][2] = {{0, 1}, {0, 3}, {0, 4}, {1, 2}, {1, 5}, {2, 3},
                                      {2, 6}, {3, 7}, {4, 5}, {4, 7}, {5, 6}, {6, 7}};
const int hex_face_vert[HEX_NF][4] = {{0, 3, 2, 1}, {0, 1, 5, 4}, {0, 4, 7, 3},
                                      {1, 2, 6, 5}, {2, 3, 7, 6}, {4, 5, 6, 7}};
