/* Test: the public header compiles as C++ and its functions link from C++. */
#include "femint.h"

#include <cstdio>
#include <cstring>

int main()
{
  struct femint_refel_info info, tet;
  int err = femint_refel_info(FEMINT_PRISM, FEMINT_H1, 3, &info);
  bool ok = err == 0 && info.nsh == 40 && info.nq == 48;
  std::printf("%s 1 - femint.h from C++: p=3 has nsh=%d nq=%d\n", ok ? "ok" : "not ok", info.nsh,
              info.nq);
  int err2 = femint_refel_info(FEMINT_TET, FEMINT_HCURL, 2, &tet);
  bool ok2 = err2 == 0 && tet.nsh == 20 &&
             std::strcmp(femint_error_name(FEMINT_ESTATE), "FEMINT_ESTATE") == 0;
  std::printf("%s 2 - H(curl) tetrahedron of order 2 from C++: nsh=%d; error names link\n1..2\n",
              ok2 ? "ok" : "not ok", err2 ? -1 : tet.nsh);
  return ok && ok2 ? 0 : 1;
}
