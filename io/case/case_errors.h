/* Puts the case file's name and line on an error found after the case was read (while
 * building the simulation): such messages start with the key path they concern, e.g.
 * "time.step = 0.001 s is above ..." or "particles[0]: could place only ...". */
#ifndef DEMPACT_CASE_ERRORS_H
#define DEMPACT_CASE_ERRORS_H

#include <stddef.h>
#include "engine/config.h"

/* Writes "FILE:LINE: message" (or "FILE: message" when the message names no key
 * found in the file) into out. */
void case_locate_error(const sim_config *cfg, const char *message, char *out, size_t out_len);

#endif
