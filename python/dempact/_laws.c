/* dempact._core: laws() and friction_laws(): the law registries as dicts, as `dempact laws` lists them. */
#define PY_SSIZE_T_CLEAN
#include <Python.h>

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "_core.h"
#include "models/friction_law.h"
#include "models/law.h"

/* ------------------------------------------------------------------ laws() */

PyObject *number_or_none(double v)
{
    if (isnan(v)) Py_RETURN_NONE;
    return PyFloat_FromDouble(v);
}

static PyObject *param_dict(const law_param *p)
{
    PyObject *choices, *def;
    if (p->choices) {
        choices = PyList_New(0);
        for (int c = 0; choices && p->choices[c]; c++) {
            PyObject *s = PyUnicode_FromString(p->choices[c]);
            if (!s || PyList_Append(choices, s) != 0) { Py_XDECREF(s); Py_CLEAR(choices); break; }
            Py_DECREF(s);
        }
        def = isnan(p->default_value) ? (Py_INCREF(Py_None), Py_None)
                                      : PyUnicode_FromString(p->choices[(int)p->default_value]);
    } else {
        choices = (Py_INCREF(Py_None), Py_None);
        def = number_or_none(p->default_value);
    }
    if (!choices || !def) { Py_XDECREF(choices); Py_XDECREF(def); return NULL; }
    return Py_BuildValue("{s:s,s:N,s:s,s:s,s:N,s:d,s:d}", "name", p->name, "default", def,
                         "unit", p->unit, "help", p->help, "choices", choices, "min",
                         p->min_value, "max", p->max_value);
}

static PyObject *law_dict(const dem_law *law)
{
    PyObject *params = PyList_New(0), *history = PyList_New(0);
    if (!params || !history) goto fail;
    for (int q = 0; q < law->n_params; q++) {
        PyObject *d = param_dict(&law->params[q]);
        if (!d || PyList_Append(params, d) != 0) { Py_XDECREF(d); goto fail; }
        Py_DECREF(d);
    }
    for (int h = 0; h < law->n_state; h++) {
        PyObject *s = PyUnicode_FromString(law->state_names[h]);
        if (!s || PyList_Append(history, s) != 0) { Py_XDECREF(s); goto fail; }
        Py_DECREF(s);
    }
    return Py_BuildValue("{s:s,s:s,s:s,s:N,s:z,s:N,s:O,s:z,s:z}", "name", law->name, "summary",
                         law->summary, "source", law->source, "parameters", params,
                         "calibrates", law->calibration ? law->calibration->coefficient : NULL,
                         "history", history, "impact_velocity",
                         law_has(&law->plugin, LAW_CAP_IMPACT_VELOCITY) ? Py_True : Py_False,
                         "elastic", law->elastic, "damping", law->damping);
fail:
    Py_XDECREF(params);
    Py_XDECREF(history);
    return NULL;
}

PyObject *core_laws(PyObject *module, PyObject *unused)
{
    PyObject *out = PyList_New(0);
    for (int k = 0; out && k < law_count(); k++) {
        PyObject *d = law_dict(law_at(k));
        if (!d || PyList_Append(out, d) != 0) { Py_XDECREF(d); Py_CLEAR(out); break; }
        Py_DECREF(d);
    }
    return out;
}

static PyObject *param_list(const law_param *params, int n)
{
    PyObject *out = PyList_New(0);
    for (int q = 0; out && q < n; q++) {
        PyObject *d = param_dict(&params[q]);
        if (!d || PyList_Append(out, d) != 0) { Py_XDECREF(d); Py_CLEAR(out); }
        Py_XDECREF(d);
    }
    return out;
}

/* the tangential and rolling laws (models/friction_registry.c), as `dempact laws --friction` */
PyObject *core_friction_laws(PyObject *module, PyObject *unused)
{
    PyObject *out = PyList_New(0);
    for (int k = 0; out && k < tangential_law_count() + rolling_law_count(); k++) {
        int tangential = k < tangential_law_count();
        const tangential_law *t = tangential ? tangential_law_at(k) : NULL;
        const rolling_law *r = tangential ? NULL : rolling_law_at(k - tangential_law_count());
        PyObject *keys = tangential ? param_list(t->params, t->n_params)
                                    : param_list(r->params, r->n_params);
        PyObject *d = keys ? Py_BuildValue(
            "{s:s,s:s,s:s,s:s,s:N,s:O,s:O}", "kind", tangential ? "friction" : "rolling",
            "name", tangential ? t->name : r->name, "summary", tangential ? t->summary : r->summary,
            "source", tangential ? t->source : r->source, "keys", keys,
            "default", k == 0 ? Py_True : Py_False,
            "spring", (tangential ? t->spring_energy != NULL : r->spring_energy != NULL)
                          ? Py_True : Py_False) : NULL;
        if (!d || PyList_Append(out, d) != 0) { Py_XDECREF(d); Py_CLEAR(out); break; }
        Py_DECREF(d);
    }
    return out;
}
