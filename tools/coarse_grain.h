/* coarse_grain: continuum fields from a dempact run's snapshots, after Goldhirsch (2010)
 * and Weinhart et al. (2012) (docs/coarse-graining.md). The program's parts:
 *   coarse_grain_kernel.c  the kernels (Gaussian cut off at 3w, Lucy) at a point and
 *                          integrated along a segment, in 3D and in 1D, in closed form;
 *   coarse_grain_read.c    the run's domain (from its case text) and its snapshots;
 *   coarse_grain_sum.c     the sums of one snapshot onto the grid, a profile or the box;
 *   coarse_grain_write.c   the fields as HDF5 and the grid as XDMF for ParaView;
 *   coarse_grain_main.c    the command line, its checks and the time average. */
#ifndef DEMPACT_COARSE_GRAIN_H
#define DEMPACT_COARSE_GRAIN_H

#include <stddef.h>
#include <stdint.h>

#define CG_EXIT_BAD_INPUT 2
#define CG_EXIT_NO_MEMORY 3

/* ---- kernels ---- */
typedef enum { CG_GAUSS, CG_LUCY } cg_kind;

typedef struct cg_kernel {
    cg_kind kind;
    double w;  /* width: the Gaussian's standard deviation; Lucy's radius is 3w */
    double c;  /* cutoff radius: 3w for both */
    double n3; /* normalisation in 3D (the integral over the ball of radius c is 1) */
    double n1; /* in 1D (the integral over [-c, c] is 1) */
} cg_kernel;

void cg_kernel_init(cg_kernel *k, cg_kind kind, double w);
/* W(d), d the vector from the particle to the field point. */
double cg_w3(const cg_kernel *k, const double d[3]);
/* int_0^1 W(d - s l) ds: the kernel along the segment from the particle (d from it to the
 * field point) over the branch l. */
double cg_line3(const cg_kernel *k, const double d[3], const double l[3]);
/* The 1D kernel (normalised on the line) at z, and along a segment of length lz. */
double cg_w1(const cg_kernel *k, double z);
double cg_line1(const cg_kernel *k, double z, double lz);

/* ---- the run ---- */
typedef struct cg_domain {
    double lo[3], hi[3];
    int periodic[3];
    int lees_edwards;  /* domain.lees_edwards present: a sheared cell, flow x, gradient z */
    double shear_rate; /* its shear_rate (1/s) */
} cg_domain;

typedef struct cg_snapshot {
    char name[16]; /* NNNNNN */
    double time;
    int64_t step;
    int64_t n;      /* particles */
    int64_t *id;    /* (n) */
    double *radius; /* (n) */
    double *mass;   /* (n) */
    double *pos;    /* (n, 3) */
    double *vel;    /* (n, 3) */
    int64_t m;      /* contacts */
    int64_t *cid;   /* (m, 2) */
    uint8_t *wall;  /* (m) */
    uint8_t *ended; /* (m): 2 holds no force; all 0 where the file has no `ended` */
    double *ends;   /* (2m, 3): i's centre, then j's (its image beside i) or the wall point */
    double *point;  /* (m, 3) contact point */
    double *normal; /* (m, 3) from i towards j (or the wall) */
    double *overlap; /* (m): read on a Lees-Edwards run only (NULL otherwise) */
    double shear_rate; /* a Lees-Edwards run: the snapshot's lees_edwards/shear_rate (the case's if absent) */
    double box_height; /* a Lees-Edwards run: the box's height H from engine@lees_edwards (a
                        * barostat changes it), 0 where the snapshot has none */
    double offset;     /* a Lees-Edwards run: the images' offset from engine@lees_edwards (the
                        * image above the top z face stands at x + offset), 0 where none */
    double *force;  /* (m, 3) on i: normal_force_vector + tangential_force */
    int64_t *row_i; /* (m): the row of the contact's particle i */
    int64_t *row_j; /* (m): the row of j, -1 for a wall */
} cg_snapshot;

typedef struct cg_run {
    const char *path;
    cg_domain domain;
    int count;        /* snapshots in the file */
    double *times;    /* (count) */
    char (*names)[16];
} cg_run;

/* Opens the run: its domain (from /case_text) and its snapshots' times. Returns 0, or
 * CG_EXIT_BAD_INPUT / CG_EXIT_NO_MEMORY with a one-line message in err. */
int cg_run_open(cg_run *run, const char *path, char *err, size_t err_len);
void cg_run_close(cg_run *run);
/* Reads snapshot k, checked (shapes, finite values, known ids). 0 or an exit status. */
int cg_snapshot_read(const cg_run *run, int k, cg_snapshot *s, char *err, size_t err_len);
void cg_snapshot_free(cg_snapshot *s);

/* ---- where the fields are computed ---- */
typedef enum { CG_GRID, CG_PROFILE, CG_BOX } cg_mode;

typedef struct cg_grid {
    cg_mode mode;
    int axis;             /* CG_PROFILE: the profile's axis */
    int64_t n[3];         /* points along each axis (1 where unused) */
    double lo[3], hi[3];  /* the region: the domain unless --region */
    double h[3];          /* spacing: points at lo + (k + 1/2) h */
    double measure;       /* CG_PROFILE: the cross-section's area; CG_BOX: the volume */
    int64_t points;
    int periodic[3];
    double length[3];     /* the domain's length along each axis (periodic images) */
    double origin[3];     /* the domain's lower corner (periodic wrapping) */
    int lees_edwards;     /* a Lees-Edwards run: particles placed in the cell through the sliding
                           * z faces, branches from the normals and overlaps, the kinetic stress
                           * about the streaming profile */
    int images_z;         /* a Lees-Edwards grid, or profile along z: each particle and branch
                           * also counts through the z faces at its images (x +- offset, z +- H,
                           * v_x +- U); length[2] is then the snapshot's height H */
} cg_grid;

/* The fields, per point, in this order (compression positive, row = force component,
 * column = branch direction). */
enum {
    CG_DENSITY = 0,        /* sum m W */
    CG_VOLUME_FRACTION = 1, /* sum V_p W */
    CG_MOMENTUM = 2,       /* sum m v W (3) */
    CG_KINETIC = 5,        /* sum m u' u' W (9): per snapshot sum m u u W - q q / rho, q the CG_DRIFT sum */
    CG_FABRIC = 14,        /* sum_p V_p sum_c n_c (x) n_c W (9) */
    CG_DRIFT = 23,         /* sum m u W (3), u the velocity the kinetic stress is about: v, or in a
                            * sheared cell v less the streaming profile at the particle */
    CG_PARTICLE_FIELDS = 26, /* the fields above: one pass over the particles */
    CG_CONTACT = 26,       /* -sum_c f_c (x) l_c int_0^1 W ds (9) */
    CG_WALL_FORCE = 35,    /* sum over wall contacts of the force on the particle, W at the contact point (3) */
    CG_FIELDS = 38
};

/* Adds one snapshot's sums into acc (points x CG_FIELDS, zeroed by the caller); -1 when
 * memory runs out. */
int cg_sum_snapshot(const cg_grid *g, const cg_kernel *k, const cg_snapshot *s, double *acc);

/* ---- output ---- */
typedef struct cg_meta {
    const char *source;
    const char *kernel;
    double width, cutoff;
    int n_snapshots;
    double t_from, t_to;
    const int64_t *steps; /* (n_snapshots) */
    const double *times;
    const double *heights; /* (n_snapshots) a Lees-Edwards run's box heights, else NULL */
} cg_meta;

/* Writes out (HDF5) and, for a grid or a profile, out's .xmf beside it; each first under
 * a temporary name, then renamed. 0, or 1 with a message. */
int cg_write(const char *out, const cg_grid *g, const cg_meta *meta, const double *fields,
             char *err, size_t err_len);

#endif
