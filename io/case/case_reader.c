/* The case reader's tools: key paths, errors at the line of a key, values as a message
 * shows them, and the scalars (numbers, vectors, flags, counts, seeds, names) parsed
 * strictly from the text libcyaml loads. */
#include "case_internal.h"
#include "engine/fail.h"

#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ------------------------------------------------------------------------------------
 * The reader and its errors.
 * ---------------------------------------------------------------------------------- */

key_path case_key(const char *fmt, ...)
{
    key_path k;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(k.s, sizeof k.s, fmt, ap);
    va_end(ap);
    return k;
}

static void vfail_line(const case_reader *c, int line, const char *fmt, va_list ap)
{
    int k = snprintf(c->err, c->err_len, "%s:%d: ", c->path, line);
    if (k >= 0 && (size_t)k < c->err_len)
        vsnprintf(c->err + k, c->err_len - (size_t)k, fmt, ap);
}

int case_fail_line(const case_reader *c, int line, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vfail_line(c, line, fmt, ap);
    va_end(ap);
    return -1;
}

/* An error at the line of `path` (or of its nearest ancestor in the file). */
int case_fail_at(const case_reader *c, const char *path, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vfail_line(c, yaml_locator_line(&c->loc, path), fmt, ap);
    va_end(ap);
    return -1;
}

int case_fail_memory(const case_reader *c, const char *path, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vfail_line(c, path ? yaml_locator_line(&c->loc, path) : 1, fmt, ap);
    va_end(ap);
    if (c->failure) *c->failure = FAIL_NO_MEMORY;
    return FAIL_NO_MEMORY;
}

/* Text as one line: control characters escaped (\n, \t, \xNN); more than `max`
 * characters (or more than fit in cap) cut short and ended with "...". */
static void one_line(char *out, size_t cap, const char *text, size_t max)
{
    size_t n = strlen(text), used = 0, k = 0, shown = n > max ? max - 3 : n;
    /* room for the longest escape, "..." and the end */
    for (; k < shown && used + 4 + 4 <= cap; k++) {
        unsigned char ch = (unsigned char)text[k];
        if (ch == '\n') used += (size_t)snprintf(out + used, cap - used, "\\n");
        else if (ch == '\t') used += (size_t)snprintf(out + used, cap - used, "\\t");
        else if (ch < 0x20 || ch == 0x7f)
            used += (size_t)snprintf(out + used, cap - used, "\\x%02x", ch);
        else out[used++] = (char)ch;
    }
    snprintf(out + used, cap - used, "%s", k < n ? "..." : "");
}

shown case_show(const char *text)
{
    shown v;
    if (!text || !*text) {
        snprintf(v.s, sizeof v.s, "an empty value");
    } else {
        char line[sizeof v.s - 2];
        one_line(line, sizeof line, text, 48);
        snprintf(v.s, sizeof v.s, "'%s'", line);
    }
    return v;
}

shown case_show_key(const char *text)
{
    shown v;
    one_line(v.s, sizeof v.s, text ? text : "", 80);
    return v;
}

/* ------------------------------------------------------------------------------------
 * Values.
 * ---------------------------------------------------------------------------------- */

bool case_parse_number(const char *text, double *out)
{
    if (!text || !*text) return false;
    char *end;
    double v = strtod(text, &end);
    while (*end == ' ' || *end == '\t') end++;
    if (end == text || *end != '\0' || !isfinite(v)) return false;
    *out = v;
    return true;
}

int case_read_number(const case_reader *c, const char *path, const char *text, double *out)
{
    if (case_parse_number(text, out)) return 0;
    return case_fail_at(c, path, "%s: expected a finite number, got %s", path, case_show(text).s);
}

int case_read_positive(const case_reader *c, const char *path, const char *text,
                       double *out)
{
    if (case_read_number(c, path, text, out) != 0) return -1;
    if (*out > 0.0) return 0;
    return case_fail_at(c, path, "%s = %s must be > 0", path, text);
}

int case_read_non_negative(const case_reader *c, const char *path, const char *text,
                           double *out)
{
    if (case_read_number(c, path, text, out) != 0) return -1;
    if (*out >= 0.0) return 0;
    return case_fail_at(c, path, "%s = %s must be >= 0", path, text);
}

int case_read_vector(const case_reader *c, const char *path, char *const *text, int n,
                     double *out)
{
    for (int k = 0; k < n; k++) {
        key_path item = case_key("%s[%d]", path, k);
        if (case_read_number(c, item.s, text[k], &out[k]) != 0) return -1;
    }
    return 0;
}

static bool equals_any_case(const char *a, const char *b)
{
    for (; *a && *b; a++, b++) {
        char x = *a >= 'A' && *a <= 'Z' ? (char)(*a - 'A' + 'a') : *a;
        if (x != *b) return false;
    }
    return *a == *b;
}

int case_read_bool(const case_reader *c, const char *path, const char *text, bool *out)
{
    static const char *const yes[] = {"true", "yes", "on"};
    static const char *const no[] = {"false", "no", "off"};
    for (int k = 0; text && k < 3; k++) {
        if (equals_any_case(text, yes[k])) return *out = true, 0;
        if (equals_any_case(text, no[k])) return *out = false, 0;
    }
    return case_fail_at(c, path, "%s: expected true or false, got %s", path, case_show(text).s);
}

int case_read_count(const case_reader *c, const char *path, const char *text, long *out)
{
    double v;
    if (!case_parse_number(text, &v) || v != floor(v) || fabs(v) > 9007199254740992.0)
        return case_fail_at(c, path, "%s: expected a whole number, got %s", path,
                            case_show(text).s);
    *out = (long)v;
    return 0;
}

int case_read_seed(const case_reader *c, const char *path, const char *text, uint64_t *out)
{
    const char *s = text ? text : "";
    bool digits = *s != '\0';
    for (const char *p = s; *p; p++) digits = digits && *p >= '0' && *p <= '9';
    errno = 0;
    unsigned long long v = digits ? strtoull(s, NULL, 10) : 0;
    if (!digits || errno == ERANGE)
        return case_fail_at(c, path, "%s: expected a whole number from 0 to 2^64-1, got %s", path,
                            case_show(text).s);
    *out = (uint64_t)v;
    return 0;
}

/* Copies a user-given name into a NAME_LEN buffer. */
int case_read_name(const case_reader *c, const char *path, const char *text, char *out)
{
    if (!text || !*text) return case_fail_at(c, path, "%s: must not be empty", path);
    if (strlen(text) >= NAME_LEN)
        return case_fail_at(c, path, "%s: %s is longer than %d characters", path, case_show(text).s,
                            NAME_LEN - 1);
    snprintf(out, NAME_LEN, "%s", text);
    return 0;
}
