/* The particles of one rank in an MPI run: those whose centres lie in its part of the
 * domain (its own, decompose.h) and copies of the others it needs (ghosts).
 *
 * A one-process run keeps every particle and, near periodic faces, images of them
 * shifted by a box length (engine/neighbours/ghosts.h); its pair list takes each pair once, from the
 * particle of lower id to the partner or the partner's image nearest it. A rank keeps
 * the entries of that store (particle, image) within the cutoff of its part or of one
 * of the part's periodic copies (the part shifted by box lengths). That is every entry a
 * pair with one of its own particles can name: such a pair lies within the cutoff of
 * the part, or, seen from its lower-id particle's side, of a copy of it. Each entry sits
 * at its particle's position plus its shift, the same sum as in one process: the same
 * bits.
 *
 * In the particle store: the own particles (0 .. n_local - 1), then the other ranks'
 * entries (n_remote of them, by sending rank, each its own ghost owner), then this
 * rank's own images (periodic ghosts, owned by their particle, moved by ghosts_update).
 *
 * Program layer, MPI builds only (DEMPACT_MPI); every function is collective. */
#ifndef DEMPACT_HALO_H
#define DEMPACT_HALO_H

#include <stddef.h>
#include <stdint.h>

#include "decompose.h"
#include "engine/sim.h"

typedef struct halo {
    const decomposition *d;
    int n_ranks, self;
    /* the entries this rank sends at each update, grouped by destination rank r:
     * send_index[send_first[r] .. send_first[r + 1]) (own particles, in the order the
     * receiver keeps them); and those it receives, by sending rank */
    int *send_first, *send_count, *recv_first, *recv_count; /* n_ranks + 1, n_ranks */
    uint32_t *send_index;
    size_t send_capacity;
    double *send_buf, *recv_buf;
    size_t send_buf_capacity, recv_buf_capacity;
    /* bytes this rank sent in the last halo_migrate, halo_exchange and halo_update */
    size_t bytes_migrate, bytes_exchange, bytes_update;
    int split;              /* the hooks kept this rank's own particles already */
    const decomposition *next; /* halo_rebalance's, from the next rebuild on */
    int switched;           /* rebuilds that took a rebalance's split */
    /* since halo_init: bytes sent at updates and at rebuilds (migration and exchange),
     * and how many of each */
    double bytes_updates, bytes_rebuilds;
    long n_updates, n_rebuilds;
} halo;

/* Starts the halo of the parts of d (which must outlive it). Returns 0 or -1. */
int halo_init(halo *h, const decomposition *d);
void halo_free(halo *h);

/* Whether every rank succeeded (ok nonzero on each): each goes on to the next collective
 * call, or none. Collective. */
int halo_all_ok(int ok);

/* The lowest rank's text of those that have one (have != 0) in every rank's text (len
 * bytes); unchanged where none has one. Collective. */
void halo_share_text(char *text, size_t len, int have);

/* The rank whose part holds the point x (Zoltan's cuts). */
int halo_owner(const halo *h, const double x[3]);

/* Keeps the particles this rank owns, where every rank holds them all (a run's start:
 * each rank built the same case): the others leave s->p through population_remove, the
 * touching pairs waiting by id for the rebuild under way. No ghosts may be present.
 * Returns 0 or -1 (out of memory, on some rank). */
int halo_keep_own(halo *h, sim *s);

/* Sends each own particle of s->p whose centre has left the part to the rank whose part
 * it is in, with all its state (particle_store's every array), removes it here
 * (population_remove, the touching pairs waiting by id for the rebuild under way) and
 * appends those that arrive, by sending rank. No ghosts may be present. The carriers' pairs (kept by id:
 * contact_list_keep_touching_by_id) with a leaving particle go along, so that its
 * contacts keep their springs. Returns 0 or -1 (on some rank). */
int halo_migrate(halo *h, sim *s, contact_list *const *carriers, int n_carriers);

/* Replaces the ghosts: receives the other ranks' entries this rank needs and makes its
 * own images (see the top of this file), and remembers what goes where for
 * halo_update. s gives the domain, its periodic axes and the cutoff; p is the store
 * (s->p in a run). Returns 0 or -1 (on some rank). */
int halo_exchange(halo *h, const sim *s, particle_store *p);

/* Brings the other ranks' entries to their particles' present positions, velocities,
 * spins and mid-step velocities (the own images: ghosts_update), an entry across the z
 * faces of a sheared box (s: Lees-Edwards) moved on as an own image is. Returns 0 or -1. */
int halo_update(halo *h, const sim *s, particle_store *p);

/* Splits the particles afresh by their present positions and work (Zoltan, as d was
 * made) into `fresh`, which h follows from the next rebuild that falls due on its own:
 * it migrates every particle to its new part with its pairs. A rebuild forced for it
 * would change the run's bits (periodic wrapping, among others, happens at rebuilds),
 * waiting for one changes none: the split run stays the one-process run to the bit.
 * Both decompositions must outlive that rebuild (halo.switched tells when it came).
 * Returns 0, or -1 with a message. */
int halo_rebalance(halo *h, sim *s, decomposition *fresh, char *err, size_t err_len);

/* The ghost hooks of a run split by h (sim_split): a rebuild keeps this rank's own
 * particles (the first time: every rank built them all) or migrates those that left,
 * then exchanges the ghosts; every other step updates them and the own images. */
void halo_hooks(halo *h, sim_ghost_hooks *hooks);

#endif
