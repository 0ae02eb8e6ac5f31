/* The OpenCL sources of kernels/, embedded in the library at build time. */
#ifndef FEMINT_CODELETS_KERNELS_H
#define FEMINT_CODELETS_KERNELS_H

struct femint_kernel_source {
  const char *name; /* file name, e.g. "volume_reg_nojac.cl" */
  const char *text;
};
/* Terminated by {NULL, NULL}. */
extern const struct femint_kernel_source femint_kernel_sources[];

/* The text of a kernel file: from $FEMINT_KERNEL_DIR/name when that variable is set (to edit
 * kernels without rebuilding), else the embedded copy; it starts with a #line directive naming
 * the file (kernels/name, or the edited copy's path), so that build logs name the file and
 * line. NULL if unknown. The caller frees. */
char *femint_kernel_text(const char *name);

#endif
