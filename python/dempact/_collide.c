/* dempact._core: collide(): one binary collision through the engine (engine/collide/collision.h), with the
 * rules of `dempact collide`. */
#define PY_SSIZE_T_CLEAN
#include <Python.h>

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "_core.h"
#include "engine/collide/collision.h"
#include "engine/collide/collision_request.h"
#include "models/adhesion_law.h"
#include "models/law.h"

/* ---------------------------------------------------------------- collide() */

static PyObject *vec2(const double v[2][3])
{
    return Py_BuildValue("[[ddd][ddd]]", v[0][0], v[0][1], v[0][2], v[1][0], v[1][1], v[1][2]);
}

/* The run's poll (engine/collide/collision.h): Python's signal handlers run here, so Ctrl-C
 * raises KeyboardInterrupt within about a thousand steps. */
static int python_poll(void *unused)
{
    (void)unused;
    return PyErr_CheckSignals() < 0;
}

/* An optional number: None is "not given". */
static int optional_number(PyObject *o, collision_input k, double *value, collision_request *rq)
{
    if (o == Py_None) return 0;
    *value = PyFloat_AsDouble(o);
    if (*value == -1.0 && PyErr_Occurred()) return -1;
    rq->given[k] = true;
    return 0;
}

/* params (what: the argument's name): a list of (key, value) pairs, value a float or a
 * str (the name of a choice), at most `max`, into "KEY=VALUE" texts held by `texts` (a
 * list, kept alive by the caller). law: the normal law they are for (NULL: a friction
 * or rolling law's keys, which are numbers). */
static int param_texts(const char *what, int max, const dem_law *law, PyObject *pairs,
                       PyObject *texts, const char **params, int *n)
{
    Py_ssize_t count = PyList_GET_SIZE(pairs);
    if (count > max) {
        PyErr_Format(Error, "%s: %zd entries, more than %s%s has parameters", what, count,
                     law ? "law " : "any model", law ? law->name : "");
        return -1;
    }
    for (Py_ssize_t k = 0; k < count; k++) {
        const char *key, *text = NULL;
        PyObject *value;
        if (!PyArg_ParseTuple(PyList_GET_ITEM(pairs, k), "sO", &key, &value)) return -1;
        PyObject *kv;
        if (PyUnicode_Check(value)) {
            text = PyUnicode_AsUTF8(value);
            if (!text) return -1;
            int q = law ? law_param_index(law, key) : -1;
            if (q >= 0 && !law->params[q].choices) {
                PyErr_Format(Error, "%s: '%s' takes a number, not the text '%s'", what, key,
                             text);
                return -1;
            }
            kv = PyUnicode_FromFormat("%s=%s", key, text);
        } else {
            double v = PyFloat_AsDouble(value);
            if (v == -1.0 && PyErr_Occurred()) return -1;
            char buf[64]; /* the shortest text that reads back as v */
            snprintf(buf, sizeof buf, "%.15g", v);
            if (strtod(buf, NULL) != v) snprintf(buf, sizeof buf, "%.17g", v);
            kv = PyUnicode_FromFormat("%s=%s", key, buf);
        }
        if (!kv || PyList_Append(texts, kv) != 0) { Py_XDECREF(kv); return -1; }
        Py_DECREF(kv);
        params[(*n)++] = PyUnicode_AsUTF8(PyList_GET_ITEM(texts, PyList_GET_SIZE(texts) - 1));
        if (!params[*n - 1]) return -1;
    }
    return 0;
}

/* collide(law, params, restitution, velocity, radius, density, young, poisson, dt,
 * dt_auto, cohesion_removal, calibrate, friction, tangential_restitution, angle,
 * tangential_velocity, spin1, spin2, friction_model, friction_params, rolling,
 * rolling_model, rolling_params, adhesion, adhesion_params): one run of engine/collide/collision.h. The package's
 * __init__.py has made every number a float (None: not given), every flag a bool and
 * every model a str or None; the values are checked here by collision_request_build, the
 * rules of `dempact collide`. params, friction_params, rolling_params, adhesion_params:
 * (key, float or str) pairs. */
PyObject *core_collide(PyObject *module, PyObject *args)
{
    (void)module;
    const char *name;
    PyObject *pairs, *e_obj, *et_obj, *angle_obj, *vt_obj, *fm_obj, *f_pairs, *r_obj, *rm_obj,
        *r_pairs, *am_obj, *a_pairs;
    int dt_auto, cohesion, calibrate;
    collision_request rq;
    collision_request_defaults(&rq);
    if (!PyArg_ParseTuple(args, "sO!Oddddddpppd" "OOO(ddd)(ddd)" "OO!OOO!" "OO!", &name, &PyList_Type,
                          &pairs, &e_obj, &rq.velocity, &rq.radius, &rq.density, &rq.young,
                          &rq.poisson, &rq.dt, &dt_auto, &cohesion, &calibrate, &rq.friction,
                          &et_obj, &angle_obj, &vt_obj, &rq.spin[0][0], &rq.spin[0][1],
                          &rq.spin[0][2], &rq.spin[1][0], &rq.spin[1][1], &rq.spin[1][2],
                          &fm_obj, &PyList_Type, &f_pairs, &r_obj, &rm_obj, &PyList_Type,
                          &r_pairs, &am_obj, &PyList_Type, &a_pairs))
        return NULL;
    if (fm_obj != Py_None && !(rq.friction_model = PyUnicode_AsUTF8(fm_obj))) return NULL;
    if (rm_obj != Py_None && !(rq.rolling_model = PyUnicode_AsUTF8(rm_obj))) return NULL;
    if (am_obj != Py_None && !(rq.adhesion = PyUnicode_AsUTF8(am_obj))) return NULL;
    rq.law = name;
    rq.dt_auto = dt_auto;
    rq.cohesion_removal = cohesion;
    rq.calibrate = calibrate;
    if (optional_number(e_obj, COLLISION_RESTITUTION, &rq.restitution, &rq) ||
        optional_number(et_obj, COLLISION_TANGENTIAL_RESTITUTION, &rq.tangential_restitution,
                        &rq) ||
        optional_number(angle_obj, COLLISION_ANGLE, &rq.angle, &rq) ||
        optional_number(vt_obj, COLLISION_TANGENTIAL_VELOCITY, &rq.tangential_velocity, &rq) ||
        optional_number(r_obj, COLLISION_ROLLING, &rq.rolling, &rq))
        return NULL;
    const char *params[LAW_MAX_PARAMS * 2];
    const char *friction_params[FRICTION_MAX_PARAMS * 2], *rolling_params[FRICTION_MAX_PARAMS * 2];
    const char *adhesion_params[ADHESION_MAX_PARAMS * 2];
    PyObject *texts = PyList_New(0);
    if (!texts) return NULL;
    rq.params = params;
    rq.friction_params = friction_params;
    rq.rolling_params = rolling_params;
    rq.adhesion_params = adhesion_params;
    const dem_law *law = law_find(name);
    if (param_texts("params", LAW_MAX_PARAMS * 2, law, pairs, texts, params, &rq.n_params) ||
        param_texts("friction_params", FRICTION_MAX_PARAMS * 2, NULL, f_pairs, texts,
                    friction_params, &rq.n_friction_params) ||
        param_texts("rolling_params", FRICTION_MAX_PARAMS * 2, NULL, r_pairs, texts,
                    rolling_params, &rq.n_rolling_params) ||
        param_texts("adhesion_params", ADHESION_MAX_PARAMS * 2, NULL, a_pairs, texts,
                    adhesion_params, &rq.n_adhesion_params)) {
        Py_DECREF(texts);
        return NULL;
    }
    collision_spec sp;
    double e_in;
    char err[512];
    int rc = collision_request_build(&rq, &sp, &e_in, err, sizeof err);
    Py_DECREF(texts); /* law_param_set has read the texts (the models' names are the
                         caller's strings, alive through the call) */
    if (rc != 0) return PyErr_Format(Error, "%s", err);
    law = sp.law;
    sp.poll = python_poll;
    collision_result r;
    rc = collision_run(&sp, &r, err, sizeof err);
    if (rc == COLLISION_STOPPED) {
        if (!PyErr_Occurred()) PyErr_SetString(Error, err);
        return NULL;
    }
    if (rc != 0) return PyErr_Format(Error, "%s", err);
    PyObject *out = Py_BuildValue(
        "{s:s,s:d,s:N,s:d,s:d,s:d,s:d,s:d,s:l,s:d,s:d,s:d,s:d,s:d,s:d,s:N,s:N}", "law",
        law->name, "velocity", sp.velocity, "restitution_in", number_or_none(e_in),
        "restitution_out", r.restitution_out, "contact_time", r.contact_time, "peak_force",
        r.peak_force, "max_overlap", r.max_overlap, "dt", r.dt, "steps", r.steps,
        "tangential_velocity", sp.tangential_velocity, "impact_angle_deg",
        atan2(sp.tangential_velocity, sp.velocity) * 180.0 / M_PI, "friction", sp.friction.mu,
        "peak_normal_force", r.peak_normal_force, "peak_tangential_force",
        r.peak_tangential_force, "sliding_fraction", r.sliding_fraction, "velocity_out",
        vec2(r.velocity_out), "spin_out", vec2(r.spin_out));
    /* the laws named, as the program's JSON names them */
    if (out && rq.friction_model) {
        PyObject *v = PyUnicode_FromString(rq.friction_model);
        if (!v || PyDict_SetItemString(out, "friction_model", v) != 0) Py_CLEAR(out);
        Py_XDECREF(v);
    }
    if (out && rq.rolling_model) {
        PyObject *m = PyUnicode_FromString(rq.rolling_model);
        PyObject *mu = PyFloat_FromDouble(sp.friction.mu_rolling);
        if (!m || !mu || PyDict_SetItemString(out, "rolling_model", m) != 0 ||
            PyDict_SetItemString(out, "rolling", mu) != 0)
            Py_CLEAR(out);
        Py_XDECREF(m);
        Py_XDECREF(mu);
    }
    if (out && sp.adhesion.law) { /* as the program's JSON: the law, its keys, stuck */
        const adhesion_law *a = sp.adhesion.law;
        PyObject *keys = PyDict_New(), *name_obj = PyUnicode_FromString(a->name);
        for (int k = 0; keys && k < a->n_params; k++) {
            PyObject *v = PyFloat_FromDouble(sp.adhesion.params[k]);
            if (!v || PyDict_SetItemString(keys, a->params[k].name, v) != 0) Py_CLEAR(keys);
            Py_XDECREF(v);
        }
        if (!keys || !name_obj || PyDict_SetItemString(out, "adhesion", name_obj) != 0 ||
            PyDict_SetItemString(out, "adhesion_params", keys) != 0 ||
            PyDict_SetItemString(out, "stuck", r.stuck ? Py_True : Py_False) != 0)
            Py_CLEAR(out);
        Py_XDECREF(keys);
        Py_XDECREF(name_obj);
    }
    if (out && sp.calibrate) {
        PyObject *cal = Py_BuildValue("{s:d}", law->calibration->coefficient, r.calibrated_value);
        if (!cal || PyDict_SetItemString(out, "calibrated", cal) != 0) Py_CLEAR(out);
        Py_XDECREF(cal);
    }
    return out;
}
