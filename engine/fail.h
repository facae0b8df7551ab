/* How a library function failed, as its return value: 0 success, FAIL_REFUSED (-1) the
 * input cannot be run (the message says why), FAIL_NO_MEMORY (-2) an allocation failed.
 * The message in err says it to a person; the value says it to the caller, which acts
 * on it (dempact exits 3 for FAIL_NO_MEMORY) without reading the message. A caller that
 * passes a callee's failure on passes its value on. */
#ifndef DEMPACT_FAIL_H
#define DEMPACT_FAIL_H

#define FAIL_REFUSED (-1)
#define FAIL_NO_MEMORY (-2)

/* rc as it is when it is a failure's value, else FAIL_REFUSED (a callee that says only
 * "failed"). */
static inline int fail_value(int rc) { return rc == FAIL_NO_MEMORY ? FAIL_NO_MEMORY : FAIL_REFUSED; }

#endif
