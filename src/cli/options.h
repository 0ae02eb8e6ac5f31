/* Option tables: each command of femint describes its options in one table of rows {name, value
 * kind, destination, help text, value placeholder}, and this module parses the command line, checks
 * the values and writes the command's --help from it. */
#ifndef FEMINT_CLI_OPTIONS_H
#define FEMINT_CLI_OPTIONS_H

#include <stddef.h>
#include <stdio.h>

/* The kinds of value an option takes, and the type of its destination. */
enum cli_kind {
  CLI_FLAG,   /* no value; int, set to 1 */
  CLI_INT,    /* a non-negative decimal integer in min..max; long */
  CLI_REAL,   /* a finite number between lo and hi (ends closed unless flags open them); double */
  CLI_CHOICE, /* one of the names of choices; int, values[i] (i when values is NULL) */
  CLI_ORDERS, /* orders "3", "1-4", "1,3,5"; struct cli_orders */
  CLI_MESH,   /* box:NX,NY,NZ, gmsh:FILE, FILE.msh, rect:NX,NY or annulus:NR,NT; struct cli_mesh */
  CLI_PATH,   /* a file name (not empty); const char *, pointing into argv */
  CLI_CUSTOM  /* parse(option, text, destination) checks and stores the value */
};

/* Flags of an option row. */
enum {
  CLI_LO_OPEN = 1, /* CLI_REAL: lo itself is refused */
  CLI_HI_OPEN = 2, /* CLI_REAL: hi itself is refused */
  CLI_WRITABLE = 4 /* CLI_PATH: a file the command will write, checked at once */
};

struct cli_option {
  const char *name;  /* "--order" */
  int kind;          /* enum cli_kind */
  size_t dest;       /* where the value goes: an offset in the command's options (offsetof) */
  const char *help;  /* one paragraph for --help, wrapped there; defaults said in it */
  const char *value; /* the placeholder of the value in --help ("P|P1-P2|P1,P2,..."); NULL: the
                        names of a choice, or "N", "X", "FILE" by kind */
  long min, max;     /* CLI_INT: the bounds */
  double lo, hi;     /* CLI_REAL: the bounds (hi may be INFINITY) */
  int flags;
  const char *const *choices; /* CLI_CHOICE: the names, NULL after the last */
  const int *values;          /* CLI_CHOICE: the value of each name, or NULL for its index */
  /* CLI_CUSTOM: 0, or EXIT_USAGE after a message naming the option and the value. */
  int (*parse)(const char *option, const char *text, void *dest);
};

/* The five fields every row has, as designated initializers, so that a row reads
 * {CLI_OPT(name, kind, destination, help, placeholder), .min = ..., ...}. */
#define CLI_OPT(name_, kind_, dest_, help_, value_)                                             \
  .name = (name_), .kind = (kind_), .dest = (dest_), .help = (help_), .value = (value_)

/* A group of rows under one heading of --help. base is added to the destinations of its rows, so
 * that a table of options kept in a struct of its own (the mesh and problem options shared by
 * femint run and femint bench) serves every command that embeds that struct. */
struct cli_section {
  const char *title; /* "Options" */
  const struct cli_option *options;
  int noptions;
  size_t base;
};

struct cli_command {
  const char *name;        /* "run" */
  const char *summary;     /* one line in 'femint help' */
  const char *synopsis;    /* after "Usage: femint NAME "; NULL: "[OPTIONS]" */
  const char *description; /* what the command does, before the options; lines are wrapped */
  const struct cli_section *sections;
  int nsections;
  const char *notes; /* after the options, or NULL */
};

/* The options given on a command line, each once (the last value counts). */
#define CLI_MAX_GIVEN 64
struct cli_args {
  int ngiven;
  const char *name[CLI_MAX_GIVEN];
  const char *value[CLI_MAX_GIVEN]; /* "" for a flag */
};

/* cli_parse's result after --help, which it prints on stdout. */
enum { CLI_HELP_SHOWN = -1 };

/* Parses argv[2..argc) into opts (the command's options, defaults already in place) by the
 * command's table. Returns 0; CLI_HELP_SHOWN; or EXIT_USAGE after one line on stderr naming the
 * option and its value (an unknown option, a missing or bad value, an argument that is not an
 * option). */
int cli_parse(const struct cli_command *cmd, int argc, char **argv, void *opts,
              struct cli_args *args);
/* The value given to an option ("" for a flag), or NULL when it was not given. */
const char *cli_given(const struct cli_args *args, const char *name);
/* The help of a command, generated from its table. */
void cli_help(const struct cli_command *cmd, FILE *f);
/* Writes text wrapped at width columns, every line after the first indented by indent spaces
 * (the first line starts at column start); a newline in text starts a new line. */
void cli_wrap(FILE *f, const char *text, int start, int indent, int width);

#endif
