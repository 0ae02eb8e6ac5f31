/* A libFuzzer harness of femint's Gmsh reader (doc/fuzzing.md): each input is written to a
 * temporary file and read as a mesh of every shape; a mesh read is checked and freed, an error must
 * leave a message. Crashes, hangs, leaks and sanitizer reports are what libFuzzer looks for. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include <femint.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
  char path[] = "/tmp/femint-fuzz-XXXXXX";
  const int fd = mkstemp(path);
  if (fd < 0) return 0;
  const int whole = write(fd, data, size) == (ssize_t)size;
  close(fd);
  if (whole) {
    femint_mesh_t mesh = NULL;
    const int err = femint_mesh_read_gmsh(NULL, path, &mesh);
    if (err == 0) {
      if (femint_mesh_num_cells(mesh) < 1) abort(); /* a mesh read has cells */
      femint_mesh_destroy(&mesh);
    } else if (mesh || !femint_last_error(NULL)[0]) {
      abort(); /* an error leaves no mesh and names its cause */
    }
  }
  unlink(path);
  return 0;
}
