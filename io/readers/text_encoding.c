#include "text_encoding.h"

#include <string.h>

size_t text_bom_length(const char *d, size_t len)
{
    return len >= 3 && memcmp(d, "\xef\xbb\xbf", 3) == 0 ? 3 : 0;
}

const char *text_encoding_problem(const char *d, size_t len)
{
    /* UTF-32 first: its little-endian mark begins with UTF-16's */
    if (len >= 4 && memcmp(d, "\xff\xfe\0\0", 4) == 0)
        return "the file is UTF-32 (little-endian, it starts with a byte-order mark): save it as "
               "UTF-8";
    if (len >= 4 && memcmp(d, "\0\0\xfe\xff", 4) == 0)
        return "the file is UTF-32 (big-endian, it starts with a byte-order mark): save it as "
               "UTF-8";
    if (len >= 2 && memcmp(d, "\xff\xfe", 2) == 0)
        return "the file is UTF-16 (little-endian, it starts with a byte-order mark): save it as "
               "UTF-8";
    if (len >= 2 && memcmp(d, "\xfe\xff", 2) == 0)
        return "the file is UTF-16 (big-endian, it starts with a byte-order mark): save it as "
               "UTF-8";
    if ((len >= 1 && d[0] == '\0') || (len >= 2 && d[1] == '\0'))
        return "the file has a NUL byte among its first two: it is UTF-16 or UTF-32 text (save it "
               "as UTF-8) or not a text file";
    return NULL;
}
