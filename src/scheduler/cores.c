/* The division of the process's cores among StarPU's workers (hwloc): one core per OpenCL
 * device's driver worker, the rest in groups, each group one CPU worker running an OpenMP team
 * whose threads are bound to its cores. */
#include <omp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "scheduler.h"

/* The process's cpuset: its binding, within the PUs the system lets it use. */
void cores_process_cpuset(hwloc_topology_t topo, hwloc_cpuset_t set)
{
  hwloc_const_cpuset_t allowed = hwloc_topology_get_allowed_cpuset(topo);
  if (hwloc_get_cpubind(topo, set, HWLOC_CPUBIND_PROCESS) != 0) hwloc_bitmap_copy(set, allowed);
  else hwloc_bitmap_and(set, set, allowed);
}

/* The cores (PUs where hwloc finds no cores) that hold PUs of set, each cut down to set. */
int cores_list(hwloc_topology_t topo, hwloc_const_cpuset_t set, hwloc_cpuset_t *cores,
                      int max)
{
  hwloc_obj_type_t type =
      hwloc_get_nbobjs_by_type(topo, HWLOC_OBJ_CORE) > 0 ? HWLOC_OBJ_CORE : HWLOC_OBJ_PU;
  int n = 0;
  for (hwloc_obj_t o = hwloc_get_next_obj_by_type(topo, type, NULL); o && n < max;
       o = hwloc_get_next_obj_by_type(topo, type, o))
    if (hwloc_bitmap_intersects(o->cpuset, set)) {
      cores[n] = hwloc_bitmap_alloc();
      hwloc_bitmap_and(cores[n++], o->cpuset, set);
    }
  return n;
}

/* The drivers take the last cores, one each; the CPU workers divide the others into contiguous
 * groups whose sizes differ by one at most. With no more cores than drivers, the drivers share
 * the cores round robin and the CPU workers have them all; with more CPU workers than cores
 * (STARPU_NCPU), groups of one core go round. */
void cores_divide(hwloc_cpuset_t *cores, int ncores, int ncpu, int nopencl,
                         struct division *d)
{
  int ncpu_cores = ncores > nopencl ? ncores - nopencl : ncores;
  d->ncpu = ncpu;
  d->nopencl = nopencl;
  for (int j = 0; j < nopencl; j++)
    d->driver[j] = hwloc_bitmap_dup(
        cores[ncores > nopencl ? ncpu_cores + j : ncores - 1 - j % ncores]);
  for (int k = 0, first = 0; k < ncpu; k++) {
    int size = ncpu_cores / ncpu + (k < ncpu_cores % ncpu);
    if (size < 1) size = 1;
    d->group_size[k] = size;
    d->group[k] = hwloc_bitmap_alloc();
    for (int i = 0; i < size; i++)
      hwloc_bitmap_or(d->group[k], d->group[k], cores[(first + i) % ncpu_cores]);
    first += size;
  }
  memset(d->taken, 0, sizeof d->taken);
}

void cores_division_free(struct division *d)
{
  for (int k = 0; k < d->ncpu; k++) hwloc_bitmap_free(d->group[k]);
  for (int j = 0; j < d->nopencl; j++) hwloc_bitmap_free(d->driver[j]);
  d->ncpu = d->nopencl = 0;
}

/* StarPU's number of a PU: its logical index in the topology (StarPU loads the same one). */
static unsigned bindid_of(hwloc_topology_t topo, hwloc_const_cpuset_t set)
{
  hwloc_obj_t pu = hwloc_get_next_obj_inside_cpuset_by_type(topo, set, HWLOC_OBJ_PU, NULL);
  return pu ? pu->logical_index : 0;
}

/* StarPU 1.3 takes the entries of workers_bindid in turn, CPU workers first, then the OpenCL
 * drivers: every entry is a PU of the cpuset, so no worker is bound outside it. */
void cores_set_bindids(hwloc_topology_t topo, const struct division *d, struct starpu_conf *conf)
{
  int n = 0;
  for (int k = 0; k < d->ncpu; k++) conf->workers_bindid[n++] = bindid_of(topo, d->group[k]);
  for (int j = 0; j < d->nopencl && n < STARPU_NMAXWORKERS; j++)
    conf->workers_bindid[n++] = bindid_of(topo, d->driver[j]);
  for (int i = n; i < STARPU_NMAXWORKERS; i++)
    conf->workers_bindid[i] = conf->workers_bindid[i % n];
  conf->use_explicit_workers_bindid = 1;
}

/* The group (CPU worker) or driver core (OpenCL worker) of worker w: the one StarPU bound it to,
 * or else the next one not given yet; -1 when there is none. */
static int take_set(hwloc_topology_t topo, struct division *d, int w, int cpu)
{
  int n = cpu ? d->ncpu : d->nopencl, base = cpu ? 0 : d->ncpu, pick = -1;
  hwloc_cpuset_t *sets = cpu ? d->group : d->driver;
  int bindid = starpu_worker_get_bindid(w);
  for (int i = 0; i < n && pick < 0; i++)
    if (!d->taken[base + i] && bindid >= 0 && bindid_of(topo, sets[i]) == (unsigned)bindid)
      pick = i;
  for (int i = 0; i < n && pick < 0; i++)
    if (!d->taken[base + i]) pick = i;
  if (pick >= 0) d->taken[base + pick] = 1;
  return pick;
}

/* Whether the user set StarPU's own binding (femint then leaves it to StarPU). */
int cores_starpu_binds_itself(void)
{
  static const char *const vars[] = {"STARPU_WORKERS_CPUID", "STARPU_WORKERS_COREID",
                                     "STARPU_WORKERS_GETBIND", "STARPU_WORKERS_NOBIND", NULL};
  for (int i = 0; vars[i]; i++)
    if (getenv(vars[i])) return 1;
  return 0;
}

void cores_give(femint_context_t ctx, struct division *d, int w, int cpu)
{
  const int k = take_set(ctx->topo, d, w, cpu);
  if (k < 0) return;
  ctx->team_set[w] = hwloc_bitmap_dup(cpu ? d->group[k] : d->driver[k]);
  if (cpu) ctx->team_size[w] = d->group_size[k];
}

/* Run on every worker once StarPU has started: binds an OpenCL driver to its core and the
 * threads of a CPU worker's team to theirs, then reads where each thread is bound. */
static void bind_worker(void *arg)
{
  femint_context_t ctx = arg;
  int w = starpu_worker_get_id(), ok = 1;
  hwloc_cpuset_t bound = hwloc_bitmap_alloc();
  if (starpu_worker_get_type(w) == STARPU_CPU_WORKER) {
#pragma omp parallel num_threads(ctx->team_size[w] > 0 ? ctx->team_size[w] : 1)
    {
      hwloc_cpuset_t mine = hwloc_bitmap_alloc();
      femint_team_bind_thread(ctx, w, omp_get_thread_num());
      int r = hwloc_get_cpubind(ctx->topo, mine, HWLOC_CPUBIND_THREAD);
#pragma omp critical(femint_bind_worker)
      {
        if (r != 0) ok = 0;
        else hwloc_bitmap_or(bound, bound, mine);
      }
      hwloc_bitmap_free(mine);
    }
  } else {
    if (ctx->team_set[w] && !cores_starpu_binds_itself())
      hwloc_set_cpubind(ctx->topo, ctx->team_set[w], HWLOC_CPUBIND_THREAD);
    ok = hwloc_get_cpubind(ctx->topo, bound, HWLOC_CPUBIND_THREAD) == 0;
  }
  if (ok) ctx->bound_set[w] = bound;
  else hwloc_bitmap_free(bound);
}

void cores_bind_workers(femint_context_t ctx)
{
  starpu_execute_on_each_worker_ex(bind_worker, ctx, STARPU_CPU | STARPU_OPENCL,
                                   "femint_bind_worker");
}

/* Each thread of a team is bound to one core of its worker's group, once. */
static _Thread_local int bound_worker = -1;

void femint_team_bind_thread(femint_context_t ctx, int workerid, int rank)
{
  if (bound_worker == workerid || !ctx->team_set[workerid] || getenv("STARPU_WORKERS_NOBIND"))
    return;
  hwloc_cpuset_t set = ctx->team_set[workerid];
  int n = hwloc_bitmap_weight(set), i = 0, id;
  hwloc_bitmap_t one = hwloc_bitmap_alloc();
  hwloc_bitmap_foreach_begin(id, set)
  {
    if (i++ == rank % n) hwloc_bitmap_only(one, id);
  }
  hwloc_bitmap_foreach_end();
  hwloc_set_cpubind(ctx->topo, one, HWLOC_CPUBIND_THREAD);
  hwloc_bitmap_free(one);
  bound_worker = workerid;
}

int femint_host_threads(femint_context_t ctx)
{
  return ctx->cores > ctx->nopencl ? ctx->cores - ctx->nopencl : 1;
}

int femint_team_enter(femint_context_t ctx)
{
  int w = starpu_worker_get_id();
  if (w < 0 || w >= STARPU_NMAXWORKERS || ctx->team_size[w] < 1) return 1;
  return ctx->team_size[w];
}
