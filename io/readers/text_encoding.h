/* The encodings the text readers (case files, particle CSV, LAMMPS data, ASCII STL) take:
 * ASCII and UTF-8, with or without a UTF-8 byte-order mark (skipped), with LF or CRLF
 * line ends. Anything else is named, so that the user learns what to do ("save it as
 * UTF-8") rather than reading about an unknown column 'x'. */
#ifndef DEMPACT_TEXT_ENCODING_H
#define DEMPACT_TEXT_ENCODING_H

#include <stddef.h>

/* 3 when d starts with the UTF-8 byte-order mark EF BB BF, else 0. */
size_t text_bom_length(const char *d, size_t len);

/* What is wrong with the text's encoding as a whole, as a phrase to follow "PATH: "
 * ("the file is UTF-16 (little-endian, ...): save it as UTF-8"), or NULL: a UTF-16 or
 * UTF-32 byte-order mark, or a NUL byte among the first two (UTF-16 or UTF-32 without
 * a mark). A NUL byte further on is left to the reader, which names its line. */
const char *text_encoding_problem(const char *d, size_t len);

#endif
