/* What the files of dempact._core share: the package's exception and the module's
 * functions beside the Run type (_core.c). */
#ifndef DEMPACT_PY_CORE_H
#define DEMPACT_PY_CORE_H

#include <Python.h>

/* dempact.Error (a RuntimeError) */
extern PyObject *Error;

/* a float, or None for NaN (a value not given) */
PyObject *number_or_none(double v);

/* _laws.c */
PyObject *core_laws(PyObject *module, PyObject *unused);
PyObject *core_friction_laws(PyObject *module, PyObject *unused);
/* _collide.c */
PyObject *core_collide(PyObject *module, PyObject *args);

#endif
