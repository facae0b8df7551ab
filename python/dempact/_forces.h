/* The external loads from Python (engine/step/external_loads.h): the methods of dempact._core.Run
 * that set and clear them and read the work they did. _core.c's method table calls these
 * with the open run and the package's exception. */
#ifndef DEMPACT_PY_FORCES_H
#define DEMPACT_PY_FORCES_H

#define PY_SSIZE_T_CLEAN
#include <Python.h>

#include "io/session/dempact_api.h"

/* set_external_loads(force, torque or None): (N, 3) float64 C-contiguous buffers, row k
 * for the particle with the k-th smallest id. */
PyObject *forces_set(dempact_run *run, PyObject *error, PyObject *args);
/* clear_external_loads() */
PyObject *forces_clear(dempact_run *run);
/* external_work() -> float, J */
PyObject *forces_work(dempact_run *run);

#endif
