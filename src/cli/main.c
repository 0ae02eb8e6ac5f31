/* The femint command: finds the command named by the first argument and runs it; 'femint help',
 * 'femint --help' and 'femint --version'. Each command is a file of its own with its option
 * table. The program uses only the public header include/femint.h. */
#ifdef HAVE_CONFIG_H
#include <config.h>
#endif

#include <errno.h>
#include <string.h>

#include "cli.h"

static const struct {
  const struct cli_command *cmd;
  int (*run)(int argc, char **argv);
} commands[] = {
  {&cli_run_cmd, cli_run_command},     {&cli_bench_cmd, cli_bench_command},
  {&cli_plan_cmd, cli_plan_command},   {&cli_refel_cmd, cli_refel_command},
  {&cli_info_cmd, cli_info_command},   {&cli_bp_cmd, cli_bp_command},
  {&cli_residual_cmd, cli_residual_command},
};
enum { NCOMMAND = sizeof commands / sizeof commands[0] };

static void usage(FILE *f)
{
  fputs("Usage: femint COMMAND [OPTIONS]\n\n"
        "Finite element numerical integration and assembly on CPU and OpenCL workers (StarPU).\n\n"
        "Commands:\n",
        f);
  for (int k = 0; k < NCOMMAND; k++) {
    fprintf(f, "  %-9s", commands[k].cmd->name);
    cli_wrap(f, commands[k].cmd->summary, 11, 11, 79);
  }
  fputs("  help     this text; 'femint help COMMAND' or 'femint COMMAND --help' describes a "
        "command\n\n"
        "Options: --help, --version. Exit status: 0 success, 1 run-time failure or failed\n"
        "verification, 2 bad usage.\n",
        f);
}

static int dispatch(int argc, char **argv)
{
  const char *name = argv[1];
  for (int k = 0; k < NCOMMAND; k++)
    if (strcmp(name, commands[k].cmd->name) == 0) return commands[k].run(argc, argv);
  if (strcmp(name, "help") == 0 || strcmp(name, "--help") == 0 || strcmp(name, "-h") == 0) {
    if (argc < 3) {
      usage(stdout);
      return 0;
    }
    for (int k = 0; k < NCOMMAND; k++)
      if (strcmp(argv[2], commands[k].cmd->name) == 0) {
        cli_help(commands[k].cmd, stdout);
        return 0;
      }
    return cli_fail_usage("help: unknown command '%s' (try 'femint help')", argv[2]);
  }
  if (strcmp(name, "--version") == 0 || strcmp(name, "version") == 0) {
    printf("femint %s\n", PACKAGE_VERSION);
    return 0;
  }
  if (name[0] == '-') return cli_fail_usage("unknown option '%s' (try 'femint --help')", name);
  return cli_fail_usage("unknown command '%s' (try 'femint --help')", name);
}

int main(int argc, char **argv)
{
  if (argc < 2) {
    usage(stderr);
    return EXIT_USAGE;
  }
  const int status = dispatch(argc, argv);
  if (fflush(stdout) != 0 || ferror(stdout)) {
    fprintf(stderr, "femint: cannot write the output: %s\n", strerror(errno));
    return EXIT_RUNTIME;
  }
  return status;
}
