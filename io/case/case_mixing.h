/* Mixing rules: a pair of materials that touch without a contact entry of its own gets
 * one mixed from its two materials' entries with themselves (io/case/case_mixing.c,
 * docs/case-file.md#mixing-pairs-without-an-entry). */
#ifndef DEMPACT_CASE_MIXING_H
#define DEMPACT_CASE_MIXING_H

#include <stdio.h>

#include "engine/config.h"

/* Prints each mixed pair of cfg (law_binding.mixed), the two entries it was mixed from
 * with their lines in the case file, and every value it took with the rule that gave it
 * (`dempact check`). Prints nothing when no pair was mixed. */
void case_mixing_print(FILE *out, const sim_config *cfg);

/* For a message that starts with the key path of a mixed pair ("contacts[2].friction...":
 * the engine names a pair by its index in bindings), a note saying which pair that is
 * and what it was mixed from, to append to it; "" for any other message. */
void case_mixing_note(const sim_config *cfg, const char *message, char *out, size_t len);

#endif
