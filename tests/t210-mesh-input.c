/* Test: simplex meshes from arrays: bad input refused, naming the cells (a repeated vertex, a
 * vertex out of range, a flat cell, a face of three cells, a cell given twice, cells tangled
 * across a face or an edge, a coordinate whose products overflow), and tetrahedra curved by edge
 * nodes given in each cell's own vertex order. */
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "tet_common.h"

static void test_mesh_errors(void)
{
  const double X[6 * 3] = {0, 0, 0, 1, 0, 0, 0, 1, 0, 0, 0, 1, 1, 1, 0, 0.2, 0.2, 0.5};
  const int repeat[4] = {0, 1, 1, 3}, outside[4] = {0, 1, 2, 7}, flat[4] = {0, 1, 2, 4};
  const int twice[12] = {0, 1, 2, 3, 0, 1, 2, 4, 2, 1, 0, 3};
  const int triple[12] = {0, 1, 2, 3, 0, 1, 2, 4, 0, 1, 2, 5};
  femint_mesh_t m = (femint_mesh_t)&m;
  int ok = femint_mesh_create(NULL, FEMINT_TET, 5, X, 1, repeat, NULL, &m) == FEMINT_EMESH &&
           !m && strstr(femint_last_error(NULL), "cell 0 repeats");
  ok = ok && femint_mesh_create(NULL, FEMINT_TET, 5, X, 1, outside, NULL, &m) == FEMINT_EMESH &&
       strstr(femint_last_error(NULL), "vertex index 7");
  ok = ok && femint_mesh_create(NULL, FEMINT_TET, 5, X, 1, flat, NULL, &m) == FEMINT_EJACOBIAN &&
       strstr(femint_last_error(NULL), "cell 0");
  ok = ok && femint_mesh_create(NULL, FEMINT_TET, 6, X, 3, triple, NULL, &m) == FEMINT_EMESH &&
       strstr(femint_last_error(NULL), "cell 0, cell 1 and cell 2");
  char msg[300];
  snprintf(msg, sizeof msg, "%s", femint_last_error(NULL));
  ok = ok && femint_mesh_create(NULL, FEMINT_TET, 5, X, 3, twice, NULL, &m) == FEMINT_EMESH &&
       strstr(femint_last_error(NULL), "cell 2 repeats cell 0");
  tap_ok(ok, "a repeated vertex, a vertex out of range, a flat cell, a face of three cells and a "
             "cell given twice are refused, naming the cells (%s; %s)",
         msg, femint_last_error(NULL));
  double huge[6 * 3];
  memcpy(huge, X, sizeof huge);
  huge[3 * 3 + 2] = 1e150;
  const int one[4] = {0, 1, 2, 3};
  const int eh = femint_mesh_create(NULL, FEMINT_TET, 6, huge, 1, one, NULL, &m);
  tap_ok(eh == FEMINT_EMESH && strstr(femint_last_error(NULL), "vertex 3") &&
             strstr(femint_last_error(NULL), "beyond"),
         "a coordinate of 1e150 (its products overflow) is refused: %s", femint_last_error(NULL));

  /* Tangled: two cells on the same side of their shared face (tetrahedra) or edge (triangles),
   * each cell valid alone; the same with the last vertex on the other side is accepted, in
   * either orientation of the cells' lists. */
  for (int tangled = 0; tangled < 2; tangled++) {
    const double T[5 * 3] = {0, 0, 0, 1, 0, 0, 0, 1, 0, 0.2, 0.2, 1, 0.3, 0.3, tangled ? 0.5 : -1};
    const int tets[8] = {0, 1, 2, 3, 4, 2, 1, 0};
    const double R[4 * 2] = {0, 0, 1, 0, 0, 1, tangled ? 0.2 : 1, tangled ? 0.2 : 1};
    const int tris[6] = {0, 1, 2, 1, 3, 2};
    const int e1 = femint_mesh_create(NULL, FEMINT_TET, 5, T, 2, tets, NULL, &m);
    char msg[400];
    snprintf(msg, sizeof msg, "%s", femint_last_error(NULL));
    femint_mesh_destroy(&m);
    const int e2 = femint_mesh_create(NULL, FEMINT_TRI, 4, R, 2, tris, NULL, &m);
    femint_mesh_destroy(&m);
    if (tangled)
      tap_ok(e1 == FEMINT_EJACOBIAN && strstr(msg, "cell 0 and cell 1") && strstr(msg, "tangled") &&
                 e2 == FEMINT_EJACOBIAN && strstr(femint_last_error(NULL), "edge they share"),
             "a vertex moved through a face or an edge: refused, naming both cells (%s; %s)", msg,
             femint_last_error(NULL));
    else
      tap_ok(e1 == 0 && e2 == 0, "the same cells with the vertex on the other side: accepted");
  }

  /* Two cells sharing the face (0, 1, 2), the second listed in another order, curved by edge
   * nodes given in the order of each cell's input vertices. */
  const double P[5 * 3] = {0, 0, 0, 1, 0, 0, 0.3, 1, 0, 0.3, 0.3, 0.9, 0.4, 0.2, -0.8};
  const int cells[8] = {0, 1, 2, 3, 4, 2, 0, 1};
  double nodes[2 * 6 * 3];
  for (int c = 0; c < 2; c++)
    for (int e = 0; e < 6; e++)
      edge_node(P, cells[4 * c + tet_edge_vert[e][0]], cells[4 * c + tet_edge_vert[e][1]],
                &nodes[3 * (6 * c + e)]);
  TAP_CALL(NULL, femint_mesh_create(NULL, FEMINT_TET, 5, P, 2, cells, nodes, &m));
  int wrong = femint_mesh_num_nodes(m) != 10 || m->nbface != 6, untagged = 0;
  for (int b = 0; b < m->nbface; b++) untagged += m->bface[3 * b + 2] == 0;
  for (int c = 0; c < 2; c++) {
    double Y[30], x[3];
    int v[4];
    TAP_CALL(NULL, femint_mesh_cell_nodes(m, c, Y));
    for (int a = 0; a < 4; a++) { /* the input vertex at each local position */
      for (v[a] = 0; v[a] < 5 && memcmp(&P[3 * v[a]], &Y[3 * a], 3 * sizeof *P); v[a]++) {
      }
      wrong += v[a] == 5 || (a > 0 && v[a] <= v[a - 1]);
    }
    for (int e = 0; e < 6 && !wrong; e++) {
      edge_node(P, v[tet_edge_vert[e][0]], v[tet_edge_vert[e][1]], x);
      wrong += memcmp(x, &Y[3 * (4 + e)], sizeof x) != 0;
    }
  }
  tap_ok(wrong == 0 && untagged == 6,
         "two cells from arrays with edge nodes: 10 nodes each, vertices ascending, each edge "
         "node where its cells put it in their own vertex order; 6 boundary faces of tag 0 "
         "(%d)",
         untagged);
  femint_mesh_destroy(&m);
  /* Cell 1 gives the shared edge (0, 2) (its local edge (1, 2)) another node. */
  nodes[3 * (6 + 3) + 1] += 0.01;
  m = (femint_mesh_t)&m;
  int err = femint_mesh_create(NULL, FEMINT_TET, 5, P, 2, cells, nodes, &m);
  tap_ok(err == FEMINT_EMESH && !m && strstr(femint_last_error(NULL), "cell 0") &&
             strstr(femint_last_error(NULL), "cell 1"),
         "edge nodes that disagree: %s, naming both cells (%s)", femint_error_name(err),
         femint_last_error(NULL));
  nodes[3 * (6 + 3) + 1] = NAN;
  err = femint_mesh_create(NULL, FEMINT_TET, 5, P, 2, cells, nodes, &m);
  tap_ok(err == FEMINT_EMESH && strstr(femint_last_error(NULL), "cell 1"),
         "an edge node that is not finite: %s (%s)", femint_error_name(err),
         femint_last_error(NULL));
}

int main(void)
{
  test_mesh_errors();
  return tap_done();
}
