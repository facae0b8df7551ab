#include "case_errors.h"

#include <ctype.h>
#include <stdio.h>
#include <string.h>

#include "case_mixing.h"
#include "yaml_locator.h"

/* Length of the key path at the start of message ("contacts[2].params"), or 0. */
static size_t leading_key_path(const char *m)
{
    size_t n = 0;
    while (m[n] && (islower((unsigned char)m[n]) || isdigit((unsigned char)m[n]) ||
                    strchr("_.[]", m[n])))
        n++;
    return n > 0 && (m[n] == ' ' || m[n] == ':') ? n : 0;
}

void case_locate_error(const sim_config *cfg, const char *message, char *out, size_t out_len)
{
    const char *file = cfg->case_path ? cfg->case_path : "case";
    size_t n = leading_key_path(message);
    int line = 0;
    if (n > 0 && n < 256 && cfg->case_text) {
        char path[256];
        memcpy(path, message, n);
        path[n] = '\0';
        yaml_locator loc = {0};
        int err_line;
        char err[64];
        /* a key the file leaves to its default (time.step when "auto" is implied) gets
         * the line of its nearest parent that the file has */
        if (yaml_locator_parse(&loc, cfg->case_text, strlen(cfg->case_text), &err_line, err,
                               sizeof err) == 0)
            line = yaml_locator_line(&loc, path);
        yaml_locator_free(&loc);
    }
    char note[256];
    case_mixing_note(cfg, message, note, sizeof note);
    if (line > 0) snprintf(out, out_len, "%s:%d: %s%s", file, line, message, note);
    else snprintf(out, out_len, "%s: %s%s", file, message, note);
}
