/* The watchdog split over ranks (sim_split): the ranks compare their problems so that
 * the one one process would find first is named, and agree on each drop. */
#include "watchdog.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "watchdog_internal.h"

/* A problem's place in watchdog_check's order (the first found wins), and whether a drop
 * settles it. */
static int problem_rank(watchdog_problem p)
{
    switch (p) {
    case WATCHDOG_NOT_FINITE: return 1;
    case WATCHDOG_OVERLAP: return 2;
    case WATCHDOG_LEFT_DOMAIN: return 3;
    case WATCHDOG_TOO_FAST: return 4;
    case WATCHDOG_ENERGY_RISE: return 5;
    default: return 0; /* the engine's own faults come first */
    }
}

static bool droppable(watchdog_problem p)
{
    return p == WATCHDOG_NOT_FINITE || p == WATCHDOG_OVERLAP || p == WATCHDOG_LEFT_DOMAIN ||
           p == WATCHDOG_TOO_FAST;
}

/* A rank's problem as the ranks compare them: (its place in check()'s order, contact
 * list, ids), what one process would find first being the smallest; then the particle
 * it names and whether a drop settles it. */
enum { ROW_RANK, ROW_LIST, ROW_KEY0, ROW_KEY1, ROW_PARTICLE, ROW_DROP, ROW_WIDTH };

static void problem_row(const sim *s, watchdog_problem p, const watchdog_report *r, double row[ROW_WIDTH])
{
    row[ROW_RANK] = problem_rank(p);
    row[ROW_LIST] = 0;
    row[ROW_KEY0] = (double)r->particle_id;
    row[ROW_KEY1] = -1;
    if (p == WATCHDOG_OVERLAP && r->contact.found) {
        int64_t a = r->particle_id, b = r->contact.wall >= 0 ? r->contact.wall : r->contact.other_id;
        row[ROW_LIST] = r->contact.wall >= 0;
        row[ROW_KEY0] = (double)(r->contact.wall >= 0 || a < b ? a : b);
        row[ROW_KEY1] = (double)(r->contact.wall >= 0 || a < b ? b : a);
    }
    row[ROW_PARTICLE] = (double)r->particle_id;
    row[ROW_DROP] = droppable(p);
}

static bool row_before(const double *a, const double *b)
{
    for (int q = 0; q < ROW_PARTICLE; q++)
        if (a[q] != b[q]) return a[q] < b[q];
    return false;
}

static bool same_row(const double *a, const double *b)
{
    return !row_before(a, b) && !row_before(b, a);
}

/* The ranks' problems compared (collective): the first one process would find, in
 * `winner`. Returns 1, 0 when no rank has one, or -1 (out of memory on some rank). */
static int first_everywhere(const sim *s, watchdog_problem p, const watchdog_report *r,
                            double winner[ROW_WIDTH])
{
    const sim_ghost_hooks *h = s->ghost_hooks;
    double mine[ROW_WIDTH], *all = NULL;
    size_t n_all = 0;
    problem_row(s, p, r, mine);
    if (h->gather(mine, p != WATCHDOG_OK, ROW_WIDTH, 0, 0, &all, &n_all, h->ctx) != 0) return -1;
    const double *first = NULL;
    for (size_t q = 0; q < n_all; q++)
        if (!first || row_before(&all[q * ROW_WIDTH], first)) first = &all[q * ROW_WIDTH];
    if (first) memcpy(winner, first, ROW_WIDTH * sizeof *winner);
    free(all);
    return first != NULL;
}

/* Whether this rank's problem p is the first of all ranks' (collective). Short of memory
 * for the comparison, each rank keeps its own: a true problem all the same. */
bool watchdog_first_here(const sim *s, watchdog_problem p, const watchdog_report *r)
{
    double mine[ROW_WIDTH], winner[ROW_WIDTH];
    int found = first_everywhere(s, p, r, winner);
    if (found < 0) return p != WATCHDOG_OK;
    problem_row(s, p, r, mine);
    return found && p != WATCHDOG_OK && same_row(winner, mine);
}

static long local_index_of(const sim *s, int64_t id)
{
    for (size_t i = 0; i < s->p.n_local; i++)
        if (s->p.id[i] == id) return (long)i;
    return -1;
}

/* The guard on ranks with on_error: drop_particle, at a step every rank checks. The
 * ranks compare their problems; the first one process would find is everyone's: a drop
 * (the particle's rank drops it, every rank takes back what its contacts exerted on its
 * own particles) and the check again, or a stop (the rank that found it reports it). */
watchdog_problem watchdog_guard_on_ranks(sim *s, watchdog_state *st, bool full, watchdog_report *r)
{
    const sim_ghost_hooks *h = s->ghost_hooks;
    for (;;) {
        watchdog_problem p = watchdog_check(s, st, full, r);
        double mine[ROW_WIDTH], winner[ROW_WIDTH];
        int found = first_everywhere(s, p, r, winner);
        if (found < 0) {
            s->fault = SIM_FAULT_NO_MEMORY;
            s->fault_memory = SIM_MEMORY_DROP;
            return WATCHDOG_OK;
        }
        if (!found) return WATCHDOG_OK;
        problem_row(s, p, r, mine);
        bool mine_first = p != WATCHDOG_OK && same_row(winner, mine);
        if (!winner[ROW_DROP]) return mine_first ? p : WATCHDOG_OK;
        int64_t id = (int64_t)winner[ROW_PARTICLE];
        long i = local_index_of(s, id);
        /* its rank reports it (it found the same problem: it holds the particle and,
         * for a contact, the pair) */
        char msg[1024] = "";
        if (i >= 0) watchdog_format(r, s, msg, sizeof msg);
        h->share(msg, sizeof msg, i >= 0, h->ctx);
        watchdog_log_drop(st, msg, id);
        double e = i >= 0 ? watchdog_particle_energy(s, (size_t)i) : -INFINITY;
        e = h->largest(isfinite(e) ? e : -INFINITY, h->ctx);
        if (isfinite(st->energy_budget) && isfinite(e)) st->energy_budget = fmax(0.0, st->energy_budget - e);
        if (i >= 0) watchdog_drop_particle(s, (size_t)i);
        else watchdog_forget_ghost(s, id);
        st->dropped++;
        if (!h->any(s->p.n_local > 0, h->ctx) && s->cfg.n_inlets == 0) {
            r->problem = WATCHDOG_NO_PARTICLES;
            return r->problem;
        }
        if (full && isfinite(st->energy_budget)) st->energy_everywhere = watchdog_over_ranks(s, watchdog_energy(s));
    }
}
