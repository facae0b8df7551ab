/* `dempact bench --adhesion MODEL --adhesion-param KEY=VALUE ...`: an adhesion law on the
 * bench bed's particle-particle and particle-floor pairs (models/adhesion_law.h), read and
 * checked by the rules `dempact collide` reads it by (collision_request_adhesion), and
 * reported with the settings. The bed's settling runs without it (engine/population/bed.h),
 * so that one --particles gives one bed with or without adhesion. */
#ifndef DEMPACT_CLI_BENCH_ADHESION_H
#define DEMPACT_CLI_BENCH_ADHESION_H

#include <stdio.h>

#include "engine/config.h"

/* The option strings as given: MODEL (NULL: none) and n "KEY=VALUE"; the normal law's
 * name (--law), which a law that replaces Hertz's curve must suit before the bed is built. */
typedef struct bench_adhesion_request {
    const char *law;
    const char *model;
    const char *params[ADHESION_MAX_PARAMS * 2];
    int n_params;
} bench_adhesion_request;

/* Checks the request and fills *out (law NULL without --adhesion). Returns 0, or -1 with
 * a one-line message naming the option, the key and the limit in err. */
int bench_adhesion_build(const bench_adhesion_request *rq, contact_adhesion *out, char *err,
                         size_t err_len);

/* json: `, "adhesion": null` or `, "adhesion": {"model": "jkr", "work": 0.2}`; text: the
 * line "adhesion  jkr (work 0.2)" (nothing without adhesion). */
void bench_adhesion_print(FILE *out, const contact_adhesion *a, int json);

#endif
