/* femint run: builds a mesh, a space and the forms of a problem for any element, makes the
 * operator, assembles its matrices in one call on every worker, and verifies them. */
#ifdef HAVE_CONFIG_H
#include <config.h>
#endif

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "run.h"

#define R(member) offsetof(struct run_options, member)
static const struct cli_option operator_options[] = {
  {CLI_OPT("--precision", CLI_CHOICE, R(precision),
           "precision of integration (and of the COO sums); rows assembly is double (default "
           "double)", NULL), .choices = cli_precision_names},
  {CLI_OPT("--where", CLI_CHOICE, R(where),
           "the workers that may integrate; cpu starts no OpenCL worker (default any)",
           NULL), .choices = cli_where_names},
  {CLI_OPT("--batch", CLI_INT, R(batch),
           "most cells per batch; 0 lets femint choose from the size of the element matrices "
           "(default 0)", "N"), .min = 0, .max = 1L << 30},
  {CLI_OPT("--devices", CLI_INT, R(devices), CLI_DEVICES_HELP, "N"), .min = 0, .max = 64},
  {CLI_OPT("--variant", CLI_CHOICE, R(variant),
           "the OpenCL kernel of H1 integration: auto, the fastest measured for the device, order "
           "and precision (measured once, kept beside StarPU's performance models); reg_nojac, "
           "reg_jac, shm_nojac, shm_jac, seed 000's four; gemm, dense products S_de = Psi_d^T "
           "Psi_e (default auto; quadrilaterals have gemm only, tetrahedra a kernel of their own)",
           "NAME"), .choices = cli_variant_names},
  {CLI_OPT("--symmetric", CLI_FLAG, R(symmetric),
           "element matrices are computed and moved as their upper half", NULL)},
  {CLI_OPT("--assembly", CLI_CHOICE, R(assembly),
           "how the element matrices are summed: rows, assembly tasks on CPU workers add them into "
           "row blocks of the matrices; coo, they are gathered as COO values on the first OpenCL "
           "device (or in main memory) and summed into the CSR values through a kept pattern (only "
           "the CSR values come back from a device); auto, coo on a GPU, and for H(curl) on any "
           "OpenCL device that may do the sums, rows otherwise (default auto)", NULL), .choices = cli_assembly_names},
  {CLI_OPT("--reproducible", CLI_FLAG, R(reproducible),
           "sum the contributions to each matrix entry in a fixed order (the plan's), so that the "
           "matrix is the same to the bit from run to run; by rows, the assemblies of batches "
           "that share rows then wait for one another", NULL)},
  {CLI_OPT("--phases", CLI_FLAG, R(phases),
           "wait for each phase (integration, then assembly or sums) before the next, so that the "
           "stages are timed apart", NULL)},
};

static const struct cli_option output_options[] = {
  {CLI_OPT("--output", CLI_PATH, R(output),
           "write the matrix in Matrix Market format to FILE.mtx; with the two forms of maxwell, "
           "PREFIX-T.mtx and PREFIX-S.mtx", "FILE.mtx|PREFIX")},
  {CLI_OPT("--timeline", CLI_PATH, R(timeline),
           "draw the tasks on each worker as a Gantt chart (gnuplot); the tasks go to FILE.csv: "
           "worker,kind,codelet,order,cells,start_s,end_s,batch,ready_s (ready: when the task's "
           "inputs were produced and it went to the scheduler)", "FILE.png")},
  {CLI_OPT("--json", CLI_FLAG, R(json),
           "print the summary as one JSON object", NULL)},
  {CLI_OPT("--quiet", CLI_FLAG, R(quiet),
           "print nothing but errors and failed checks (the exit status tells the result)", NULL)},
  {CLI_OPT("--verbose", CLI_FLAG, R(verbose),
           "let StarPU print its own messages (calibration, warnings)", NULL)},
};

static const struct cli_section sections[] = {
  {"Mesh, space and problem", cli_setup_options, CLI_SETUP_NOPTIONS,
   offsetof(struct run_options, s)},
  {"Operator", operator_options, sizeof operator_options / sizeof operator_options[0], 0},
  {"Output", output_options, sizeof output_options / sizeof output_options[0], 0},
};

const struct cli_command cli_run_cmd = {
  "run",
  "integrate and assemble the forms of a problem on a mesh of any element, verify the matrices",
  NULL,
  "Builds a mesh (a box of prisms or tetrahedra, a rectangle or an annulus of quadrilaterals, or "
  "a Gmsh file), a space (H1 of mixed orders on prisms and quadrilaterals, H(curl) of one order "
  "with conductor walls on tetrahedra) and the forms of a problem, makes the operator, integrates "
  "and assembles its CSR matrices on every CPU and OpenCL worker in one call, and verifies them: "
  "symmetry; the null space (rigid modes, constants, discrete gradients in the kernel of the "
  "curl-curl matrix) or 1^T M 1 = volume; a positive diagonal.",
  sections,
  sizeof sections / sizeof sections[0],
  "Options take their value as the next argument or after '=' (--order=3). Exit status: 0 when "
  "every check passes, 1 when a check or the run fails, 2 for bad usage. doc/cli.md describes "
  "the summary line by line.",
};

/* Checks that need every option: the setup's defaults, and the files to write. */
static int run_check(struct run_options *o)
{
  int rc = cli_setup_resolve(&o->s);
  if (rc) return rc;
  if (o->s.family == FEMINT_HCURL && o->variant != FEMINT_VARIANT_AUTO)
    return cli_fail_usage("--variant %s: the variants are those of the H1 kernel; --element tet "
                          "has one kernel",
                          cli_variant_names[o->variant]);
  if (o->s.shape != FEMINT_PRISM &&
      o->variant != FEMINT_VARIANT_AUTO && o->variant != FEMINT_VARIANT_GEMM)
    return cli_fail_usage("--variant %s: %s have the gemm kernel only",
                          cli_variant_names[o->variant], cli_shape_plural(o->s.shape));
  for (int f = 0; o->output && f < cli_setup_nforms(&o->s); f++) {
    char path[4096];
    cli_output_path(&o->s, o->output, f, path, sizeof path);
    if (cli_check_writable("--output", path)) return EXIT_USAGE;
  }
  if (o->timeline && cli_check_timeline("--timeline", o->timeline)) return EXIT_USAGE;
  return 0;
}

/* The volume of the mesh (exact for generated boxes and rectangles, whose boundary stays where
 * it is) and the centre of its bounding box. */
static int mesh_geometry(const struct cli_setup *s, femint_mesh_t mesh, double *volume,
                         double centre[3])
{
  double lo[3] = {INFINITY, INFINITY, INFINITY}, hi[3] = {-INFINITY, -INFINITY, -INFINITY};
  const struct cli_mesh *m = &s->mesh;
  int rc = 0;
  if (m->kind == CLI_MESH_BOX || m->kind == CLI_MESH_RECT)
    *volume = (double)m->nx * m->ny * (m->kind == CLI_MESH_BOX ? m->nz : 1);
  else rc = femint_mesh_volume(mesh, volume);
  for (int v = 0; !rc && v < femint_mesh_num_vertices(mesh); v++) {
    double x[3];
    if ((rc = femint_mesh_vertex_coords(mesh, v, x)) != 0) break;
    for (int i = 0; i < 3; i++) lo[i] = fmin(lo[i], x[i]), hi[i] = fmax(hi[i], x[i]);
  }
  for (int i = 0; i < 3; i++) centre[i] = 0.5 * (lo[i] + hi[i]);
  return rc;
}

static int write_outputs(femint_context_t ctx, const struct run_options *o, femint_matrix_t *A)
{
  for (int f = 0; f < cli_setup_nforms(&o->s); f++) {
    char path[4096];
    cli_output_path(&o->s, o->output, f, path, sizeof path);
    int rc = femint_matrix_write_mm(ctx, A[f], path);
    if (rc) return rc;
  }
  return 0;
}

int cli_run_command(int argc, char **argv)
{
  struct run_options o = {.s = CLI_SETUP_INIT, .precision = FEMINT_DOUBLE,
                          .where = FEMINT_WHERE_ANY};
  struct cli_args args;
  int status = cli_parse(&cli_run_cmd, argc, argv, &o, &args);
  if (status) return status < 0 ? 0 : status;
  /* A file is read before StarPU starts, so that a bad one fails fast; without --element, the
   * shape of its cells is the element. */
  femint_mesh_t mesh = NULL;
  if (!cli_given(&args, "--element") && o.s.mesh.kind == CLI_MESH_GMSH) {
    const int err = femint_mesh_read_gmsh(NULL, o.s.mesh.file, &mesh);
    if (err) return cli_fail_runtime(NULL, err);
    o.s.shape = femint_mesh_shape(mesh);
  }
  if ((status = run_check(&o)) != 0) {
    femint_mesh_destroy(&mesh);
    return status;
  }

  femint_context_t ctx = NULL;
  femint_space_t space = NULL;
  femint_form_t forms[CLI_MAX_FORMS] = {NULL};
  femint_operator_t op = NULL;
  femint_matrix_t A[CLI_MAX_FORMS] = {NULL};
  static char names[FEMINT_MAX_WORKERS][CLI_NAME_LEN];
  struct run_result r = {.names = names};
  char *timeline_csv = NULL;
  double centre[3];
  int nform = 0, rc;
  if (!mesh && cli_setup_read(&o.s, &mesh)) return EXIT_RUNTIME;
  struct femint_init_options iopt = {.nopencl = o.where == FEMINT_WHERE_CPU ? 0 : -1,
                                     .quiet = !o.verbose};
  double t0 = cli_now();
  if (cli_init(&iopt, &ctx)) {
    femint_mesh_destroy(&mesh);
    return EXIT_RUNTIME;
  }
  r.t_init = cli_now() - t0;
  status = EXIT_RUNTIME;
  if ((rc = cli_setup_mesh(ctx, &o.s, &mesh)) != 0 ||
      (rc = mesh_geometry(&o.s, mesh, &r.volume, centre)) != 0 ||
      (rc = cli_setup_space(ctx, &o.s, mesh, r.count, &r.removed, &space)) != 0 ||
      (rc = cli_setup_forms(ctx, &o.s, forms, &nform)) != 0)
    goto fail;
  r.ncell = femint_mesh_num_cells(mesh);
  r.nvert = femint_mesh_num_vertices(mesh);
  r.nodes = femint_mesh_num_nodes(mesh);
  if (o.timeline && !(timeline_csv = cli_timeline_csv(o.timeline))) {
    cli_fail("out of memory");
    goto done;
  }
  struct femint_operator_options opt = {.precision = o.precision, .where = o.where,
                                        .max_batch = (int)o.batch, .variant = o.variant,
                                        .symmetric = o.symmetric, .assembly = o.assembly,
                                        .phases = o.phases, .timeline = timeline_csv,
                                        .devices = (int)o.devices,
                                        .reproducible = o.reproducible};
  t0 = cli_now();
  if ((rc = femint_operator_create(ctx, space, nform, forms, &opt, &op)) != 0) goto fail;
  r.t_plan = cli_now() - t0;
  if ((rc = femint_operator_assemble(op, A, &r.st)) != 0) goto fail;
  if (o.timeline &&
      cli_timeline_plot(ctx, timeline_csv, o.timeline, "femint run: tasks per worker"))
    goto done;
  if (o.output && (rc = write_outputs(ctx, &o, A)) != 0) goto fail;
  rc = cli_verify(&o.s, mesh, space, A, o.precision, r.volume, centre, r.checks, &r.nchecks);
  if (rc > 0) goto done;
  if (!rc) rc = cli_verify_cells(ctx, space, r.ncell, nform, forms, &opt, r.checks, &r.nchecks);
  if (rc < 0) goto fail;
  cli_worker_names(ctx, &r.st, names);
  r.pass = 1;
  for (int k = 0; k < r.nchecks; k++) r.pass &= r.checks[k].pass;
  if (o.json) {
    cli_run_print_json(&o, &r);
  } else if (!o.quiet) {
    cli_run_print_human(&o, &r);
  } else {
    for (int k = 0; k < r.nchecks; k++)
      if (!r.checks[k].pass)
        fprintf(stderr, "femint: verification failed: %s = %.3e, not %s %g\n", r.checks[k].name,
                r.checks[k].value, r.checks[k].above ? ">" : "<", r.checks[k].tolerance);
  }
  status = r.pass ? 0 : EXIT_RUNTIME;
  goto done;
fail:
  cli_fail_runtime(ctx, rc);
done:
  for (int f = 0; f < CLI_MAX_FORMS; f++) {
    femint_matrix_destroy(&A[f]);
    femint_form_destroy(&forms[f]);
  }
  femint_operator_destroy(&op);
  femint_space_destroy(&space);
  femint_mesh_destroy(&mesh);
  free(timeline_csv);
  femint_finalize(&ctx);
  return status;
}
