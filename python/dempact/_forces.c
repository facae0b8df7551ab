/* The external loads from Python (_forces.h). The package's __init__.py hands numbers
 * as float64 arrays; their shape is checked here and their values by the engine
 * (sim_set_external_loads), so that every caller meets the same rules. */
#include "_forces.h"

#include <string.h>

#include "engine/step/external_loads.h"

/* An (n, 3) float64 buffer of `what`; -1 with `error` raised otherwise. */
static int rows_of(PyObject *obj, const char *what, size_t n, PyObject *error, Py_buffer *b)
{
    if (PyObject_GetBuffer(obj, b, PyBUF_C_CONTIGUOUS | PyBUF_FORMAT) != 0) {
        PyErr_Clear();
        PyErr_Format(error, "set_external_loads: %s: an (N, 3) array of numbers, not %R", what, obj);
        return -1;
    }
    const char *format = b->format ? b->format : "B";
    int is_double = b->itemsize == 8 && (!strcmp(format, "d") || !strcmp(format, "<d") ||
                                         !strcmp(format, "=d") || !strcmp(format, "@d"));
    if (!is_double || b->ndim != 2 || b->shape[1] != 3 || (size_t)b->shape[0] != n) {
        if (b->ndim == 2)
            PyErr_Format(error, "set_external_loads: %s: must be (%zu, 3) float64, one row per "
                         "particle in id order, not (%zd, %zd) of format '%s'", what, n,
                         b->shape[0], b->shape[1], format);
        else
            PyErr_Format(error, "set_external_loads: %s: must be (%zu, 3) float64, one row per "
                         "particle in id order, not %d-dimensional", what, n, b->ndim);
        PyBuffer_Release(b);
        return -1;
    }
    return 0;
}

PyObject *forces_set(dempact_run *run, PyObject *error, PyObject *args)
{
    PyObject *force_obj, *torque_obj = Py_None;
    if (!PyArg_ParseTuple(args, "O|O", &force_obj, &torque_obj)) return NULL;
    size_t n = run->ss.s.p.n_local;
    Py_buffer force, torque;
    if (rows_of(force_obj, "force", n, error, &force) != 0) return NULL;
    int has_torque = torque_obj != Py_None;
    if (has_torque && rows_of(torque_obj, "torque", n, error, &torque) != 0) {
        PyBuffer_Release(&force);
        return NULL;
    }
    char err[1024];
    int rc = sim_set_external_loads(&run->ss.s, force.buf, has_torque ? torque.buf : NULL, n, err,
                                    sizeof err);
    PyBuffer_Release(&force);
    if (has_torque) PyBuffer_Release(&torque);
    if (rc != 0) return PyErr_Format(error, "set_external_loads: %s", err);
    dempact_driven(run); /* the loads put energy in from outside */
    Py_RETURN_NONE;
}

PyObject *forces_clear(dempact_run *run)
{
    if (external_loads_set(&run->ss.s)) {
        sim_clear_external_loads(&run->ss.s);
        dempact_driven(run);
    }
    Py_RETURN_NONE;
}

PyObject *forces_work(dempact_run *run)
{
    return PyFloat_FromDouble(sim_external_work(&run->ss.s));
}
