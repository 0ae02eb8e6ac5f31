/* Test: the public header compiles as C++ and its functions link from C++. */
#include "femint.h"

#include <cstdio>
#include <cstring>

int main()
{
  struct femint_refel_info info;
  int err = femint_refel_info(FEMINT_PRISM, 3, &info);
  bool ok = err == 0 && info.nsh == 40 && info.nq == 48;
  std::printf("%s 1 - femint.h from C++: p=3 has nsh=%d nq=%d\n1..1\n", ok ? "ok" : "not ok",
              info.nsh, info.nq);
  return ok ? 0 : 1;
}
