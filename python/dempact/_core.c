/* dempact._core: the C side of the Python package. A Run wraps io/dempact_api.h (one
 * simulation); laws() and collide() read the law registry and run engine/collision.h.
 * Arrays cross as bytes (the package's __init__.py makes read-only numpy arrays of
 * them), every per-particle array in the order of the particles' ids. Errors raise
 * dempact.Error with the engine's message. */
#define PY_SSIZE_T_CLEAN
#include <Python.h>

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "engine/collision.h"
#include "engine/collision_request.h"
#include "engine/friction.h"
#include "io/dempact_api.h"
#include "models/friction_law.h"
#include "models/law.h"
#include "_forces.h"

static PyObject *Error;

typedef struct {
    PyObject_HEAD
    dempact_run run;
    int open;
    int interrupted; /* a signal handler raised during the current call */
} Run;

/* dempact_run.poll: runs Python's signal handlers between steps (cheap when no signal
 * is pending: one atomic read). A handler that raises (SIGINT's: KeyboardInterrupt)
 * stops the steps; its exception is the call's. */
static int poll_signals(void *ctx)
{
    Run *self = ctx;
    if (!self->interrupted && PyErr_CheckSignals() < 0) self->interrupted = 1;
    return self->interrupted;
}

/* The end of a call that stepped: NULL with the exception of a signal handler, or of
 * the engine's message (rc < 0); else 0. */
static int stepped(Run *self, int rc, const char *err)
{
    if (self->interrupted || PyErr_Occurred()) {
        self->interrupted = 0;
        if (!PyErr_Occurred()) PyErr_SetNone(PyExc_KeyboardInterrupt);
        return -1;
    }
    if (rc < 0) {
        PyErr_SetString(Error, err);
        return -1;
    }
    if (rc == DEMPACT_STOPPED) { /* stopped, yet no handler raised: cannot happen */
        PyErr_SetNone(PyExc_KeyboardInterrupt);
        return -1;
    }
    return 0;
}

static int check_open(Run *self)
{
    if (self->open) return 0;
    PyErr_SetString(Error, "the simulation is closed");
    return -1;
}

static int Run_init(Run *self, PyObject *args, PyObject *kw)
{
    const char *path;
    static char *names[] = {"case", NULL};
    if (!PyArg_ParseTupleAndKeywords(args, kw, "s", names, &path)) return -1;
    if (self->open) {
        dempact_close(&self->run);
        self->open = 0;
    }
    char err[8192];
    if (dempact_open(&self->run, path, err, sizeof err) != 0) {
        PyErr_SetString(Error, err);
        return -1;
    }
    self->open = 1;
    self->interrupted = 0;
    self->run.poll = poll_signals;
    self->run.poll_ctx = self;
    return 0;
}

static void Run_dealloc(Run *self)
{
    if (self->open) dempact_close(&self->run);
    Py_TYPE(self)->tp_free((PyObject *)self);
}

static PyObject *Run_close(Run *self, PyObject *unused)
{
    if (self->open) dempact_close(&self->run);
    self->open = 0;
    Py_RETURN_NONE;
}

/* step(n): n steps (the package's __init__.py checks n's type; dempact_step its value) */
static PyObject *Run_step(Run *self, PyObject *args)
{
    long long n = 1;
    if (!PyArg_ParseTuple(args, "|L", &n) || check_open(self)) return NULL;
    char err[2048];
    self->interrupted = 0;
    int rc = dempact_step(&self->run, n, err, sizeof err);
    if (stepped(self, rc, err) < 0) return NULL;
    Py_RETURN_NONE;
}

/* The local particles' indices in the order of their ids. */
static const int64_t *sort_ids;
static int by_id(const void *a, const void *b)
{
    int64_t x = sort_ids[*(const size_t *)a], y = sort_ids[*(const size_t *)b];
    return (x > y) - (x < y);
}

static size_t *id_order(const particle_store *p)
{
    size_t *order = malloc((p->n_local ? p->n_local : 1) * sizeof *order);
    if (!order) return (size_t *)PyErr_NoMemory();
    for (size_t i = 0; i < p->n_local; i++) order[i] = i;
    sort_ids = p->id; /* under the GIL: one sort at a time */
    qsort(order, p->n_local, sizeof *order, by_id);
    return order;
}

/* field(name) -> bytes: id (int64), radius, mass (float64, N), position, velocity,
 * angular_velocity, force, torque (float64, N x 3), in id order. */
static PyObject *Run_field(Run *self, PyObject *args)
{
    const char *name;
    if (!PyArg_ParseTuple(args, "s", &name) || check_open(self)) return NULL;
    const particle_store *p = &self->run.s.p;
    const double *vec[3] = {NULL, NULL, NULL}, *scalar = NULL;
    int is_id = !strcmp(name, "id");
    if (!strcmp(name, "position")) { vec[0] = p->x; vec[1] = p->y; vec[2] = p->z; }
    else if (!strcmp(name, "velocity")) { vec[0] = p->vx; vec[1] = p->vy; vec[2] = p->vz; }
    else if (!strcmp(name, "angular_velocity")) { vec[0] = p->wx; vec[1] = p->wy; vec[2] = p->wz; }
    else if (!strcmp(name, "force")) { vec[0] = p->fx; vec[1] = p->fy; vec[2] = p->fz; }
    else if (!strcmp(name, "torque")) { vec[0] = p->tx; vec[1] = p->ty; vec[2] = p->tz; }
    else if (!strcmp(name, "radius")) scalar = p->radius;
    else if (!strcmp(name, "mass")) scalar = p->mass;
    else if (!is_id) {
        PyErr_Format(PyExc_ValueError, "no particle field '%s'", name);
        return NULL;
    }
    size_t n = p->n_local, width = vec[0] ? 3 : 1;
    size_t *order = id_order(p);
    if (!order) return NULL;
    PyObject *out = PyBytes_FromStringAndSize(NULL, (Py_ssize_t)(n * width * 8));
    if (out) {
        char *buf = PyBytes_AS_STRING(out);
        for (size_t k = 0; k < n; k++) {
            size_t i = order[k];
            if (is_id) memcpy(buf + 8 * k, &p->id[i], 8);
            else if (scalar) memcpy(buf + 8 * k, &scalar[i], 8);
            else
                for (int a = 0; a < 3; a++) memcpy(buf + 8 * (3 * k + a), &vec[a][i], 8);
        }
    }
    free(order);
    return out;
}

static PyObject *Run_set_velocity(Run *self, PyObject *args)
{
    long long id;
    double v[3];
    if (!PyArg_ParseTuple(args, "L(ddd)", &id, &v[0], &v[1], &v[2]) || check_open(self))
        return NULL;
    char err[1024];
    if (dempact_set_velocity(&self->run, id, v, err, sizeof err) != 0) {
        PyErr_SetString(Error, err);
        return NULL;
    }
    Py_RETURN_NONE;
}

/* set_velocities(bytes): 3 float64 per particle, in id order; every row is checked
 * (dempact_check_velocity) before any is set. */
static PyObject *Run_set_velocities(Run *self, PyObject *args)
{
    Py_buffer b;
    if (!PyArg_ParseTuple(args, "y*", &b)) return NULL;
    if (check_open(self)) { PyBuffer_Release(&b); return NULL; }
    particle_store *p = &self->run.s.p;
    if ((size_t)b.len != 24 * p->n_local) {
        PyErr_Format(Error, "set_velocities: need %zu x 3 velocities", p->n_local);
        PyBuffer_Release(&b);
        return NULL;
    }
    const double *v = b.buf;
    size_t *order = id_order(p);
    if (!order) { PyBuffer_Release(&b); return NULL; }
    char err[1024];
    for (size_t k = 0; k < p->n_local; k++)
        if (dempact_check_velocity(&self->run, order[k], v + 3 * k, "set_velocities", err,
                                   sizeof err) != 0) {
            PyErr_Format(Error, "%s (row %zu)", err, k);
            free(order);
            PyBuffer_Release(&b);
            return NULL;
        }
    for (size_t k = 0; k < p->n_local; k++) {
        size_t i = order[k];
        p->vx[i] = v[3 * k]; p->vy[i] = v[3 * k + 1]; p->vz[i] = v[3 * k + 2];
    }
    free(order);
    PyBuffer_Release(&b);
    dempact_driven(&self->run);
    Py_RETURN_NONE;
}

static PyObject *Run_set_wall_velocity(Run *self, PyObject *args)
{
    Py_ssize_t w;
    double v[3];
    if (!PyArg_ParseTuple(args, "n(ddd)", &w, &v[0], &v[1], &v[2]) || check_open(self))
        return NULL;
    char err[512];
    if (w < 0) {
        PyErr_Format(Error, "wall index %zd: must be >= 0", w);
        return NULL;
    }
    if (dempact_set_wall_velocity(&self->run, (size_t)w, v, err, sizeof err) != 0) {
        PyErr_SetString(Error, err);
        return NULL;
    }
    Py_RETURN_NONE;
}

/* contacts() -> (bytes ids: int64 M x 2, bytes force: float64 M x 3): the touching
 * particle pairs, the force on the first from the last step. */
static PyObject *Run_contacts(Run *self, PyObject *unused)
{
    if (check_open(self)) return NULL;
    const contact_list *c = &self->run.s.pairs;
    const particle_store *p = &self->run.s.p;
    size_t m = 0;
    for (size_t k = 0; k < c->n; k++) m += contact_holds_force(c->touching[k]);
    PyObject *ids = PyBytes_FromStringAndSize(NULL, (Py_ssize_t)(16 * m));
    PyObject *force = PyBytes_FromStringAndSize(NULL, (Py_ssize_t)(24 * m));
    if (!ids || !force) {
        Py_XDECREF(ids);
        Py_XDECREF(force);
        return NULL;
    }
    int64_t *id = (int64_t *)PyBytes_AS_STRING(ids);
    double *f = (double *)PyBytes_AS_STRING(force);
    size_t r = 0;
    for (size_t k = 0; k < c->n; k++) {
        if (!contact_holds_force(c->touching[k])) continue;
        id[2 * r] = p->id[c->i[k]];
        id[2 * r + 1] = p->id[c->owner_j[k]];
        for (int a = 0; a < 3; a++) f[3 * r + a] = c->force[a][k];
        r++;
    }
    return Py_BuildValue("(NN)", ids, force);
}

/* run_to(until, dir or None) -> the path of DIR/NAME.h5, or None */
static PyObject *Run_run_to(Run *self, PyObject *args)
{
    double until;
    const char *dir = NULL;
    if (!PyArg_ParseTuple(args, "dz", &until, &dir) || check_open(self)) return NULL;
    char err[4096];
    self->interrupted = 0;
    int rc = dempact_run_to(&self->run, until, dir, err, sizeof err);
    if (stepped(self, rc, err) < 0) return NULL;
    if (!dir) Py_RETURN_NONE;
    return PyUnicode_FromString(snapshot_h5_path(self->run.out));
}

static PyObject *Run_write_snapshot(Run *self, PyObject *args)
{
    const char *dir;
    if (!PyArg_ParseTuple(args, "s", &dir) || check_open(self)) return NULL;
    char err[8192];
    if (dempact_write_snapshot(&self->run, dir, err, sizeof err) != 0) {
        PyErr_SetString(Error, err);
        return NULL;
    }
    return PyUnicode_FromString(snapshot_h5_path(self->run.out));
}

static PyObject *Run_info(Run *self, PyObject *unused)
{
    if (check_open(self)) return NULL;
    const sim *s = &self->run.s;
    PyObject *walls = PyList_New(0);
    if (!walls) return NULL;
    for (size_t w = 0; w < s->walls.n; w++) {
        PyObject *name = PyUnicode_FromString(s->walls.walls[w].name);
        if (!name || PyList_Append(walls, name) != 0) {
            Py_XDECREF(name);
            Py_DECREF(walls);
            return NULL;
        }
        Py_DECREF(name);
    }
    return Py_BuildValue("{s:d,s:d,s:L,s:n,s:d,s:s,s:N,s:O}", "time", s->time, "dt", s->dt,
                         "step", (long long)s->step, "n", (Py_ssize_t)s->p.n_local,
                         "end_time", self->run.cfg.end_time, "name", self->run.cfg.name,
                         "walls", walls, "driven", self->run.driven ? Py_True : Py_False);
}

/* the external loads (_forces.c) */
static PyObject *Run_set_external_loads(Run *self, PyObject *args)
{
    return check_open(self) ? NULL : forces_set(&self->run, Error, args);
}
static PyObject *Run_clear_external_loads(Run *self, PyObject *unused)
{
    return check_open(self) ? NULL : forces_clear(&self->run);
}
static PyObject *Run_external_work(Run *self, PyObject *unused)
{
    return check_open(self) ? NULL : forces_work(&self->run);
}

static PyMethodDef Run_methods[] = {
    {"step", (PyCFunction)Run_step, METH_VARARGS, "step(n=1): n steps under the watchdog"},
    {"field", (PyCFunction)Run_field, METH_VARARGS, "field(name) -> bytes, in id order"},
    {"set_velocity", (PyCFunction)Run_set_velocity, METH_VARARGS, "set_velocity(id, (vx, vy, vz))"},
    {"set_velocities", (PyCFunction)Run_set_velocities, METH_VARARGS, "set_velocities(bytes)"},
    {"set_wall_velocity", (PyCFunction)Run_set_wall_velocity, METH_VARARGS,
     "set_wall_velocity(index, (vx, vy, vz))"},
    {"contacts", (PyCFunction)Run_contacts, METH_NOARGS, "contacts() -> (ids, force) bytes"},
    {"run_to", (PyCFunction)Run_run_to, METH_VARARGS,
     "run_to(until, dir or None): as dempact run --end-time until, with output to dir on the "
     "case's grids; -> path of NAME.h5 or None"},
    {"write_snapshot", (PyCFunction)Run_write_snapshot, METH_VARARGS,
     "write_snapshot(dir) -> path of NAME.h5"},
    {"info", (PyCFunction)Run_info, METH_NOARGS, "time, dt, step, n, end_time, name, walls, driven"},
    {"set_external_loads", (PyCFunction)Run_set_external_loads, METH_VARARGS,
     "set_external_loads(force, torque or None): (N, 3) float64, in id order"},
    {"clear_external_loads", (PyCFunction)Run_clear_external_loads, METH_NOARGS,
     "clear_external_loads()"},
    {"external_work", (PyCFunction)Run_external_work, METH_NOARGS, "external_work() -> J"},
    {"close", (PyCFunction)Run_close, METH_NOARGS, "frees the simulation"},
    {NULL, NULL, 0, NULL}};

static PyTypeObject RunType = {
    PyVarObject_HEAD_INIT(NULL, 0).tp_name = "dempact._core.Run",
    .tp_basicsize = sizeof(Run),
    .tp_flags = Py_TPFLAGS_DEFAULT,
    .tp_new = PyType_GenericNew,
    .tp_init = (initproc)Run_init,
    .tp_dealloc = (destructor)Run_dealloc,
    .tp_methods = Run_methods,
    .tp_doc = "One simulation of a case (io/dempact_api.h).",
};

/* ------------------------------------------------------------------ laws() */

static PyObject *number_or_none(double v)
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

static PyObject *core_laws(PyObject *module, PyObject *unused)
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
static PyObject *core_friction_laws(PyObject *module, PyObject *unused)
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

/* ---------------------------------------------------------------- collide() */

static PyObject *vec2(const double v[2][3])
{
    return Py_BuildValue("[[ddd][ddd]]", v[0][0], v[0][1], v[0][2], v[1][0], v[1][1], v[1][2]);
}

/* The run's poll (engine/collision.h): Python's signal handlers run here, so Ctrl-C
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
 * rolling_model, rolling_params): one run of engine/collision.h. The package's
 * __init__.py has made every number a float (None: not given), every flag a bool and
 * every model a str or None; the values are checked here by collision_request_build, the
 * rules of `dempact collide`. params, friction_params, rolling_params: (key, float or
 * str) pairs. */
static PyObject *core_collide(PyObject *module, PyObject *args)
{
    (void)module;
    const char *name;
    PyObject *pairs, *e_obj, *et_obj, *angle_obj, *vt_obj, *fm_obj, *f_pairs, *r_obj, *rm_obj,
        *r_pairs;
    int dt_auto, cohesion, calibrate;
    collision_request rq;
    collision_request_defaults(&rq);
    if (!PyArg_ParseTuple(args, "sO!Oddddddpppd" "OOO(ddd)(ddd)" "OO!OOO!", &name, &PyList_Type,
                          &pairs, &e_obj, &rq.velocity, &rq.radius, &rq.density, &rq.young,
                          &rq.poisson, &rq.dt, &dt_auto, &cohesion, &calibrate, &rq.friction,
                          &et_obj, &angle_obj, &vt_obj, &rq.spin[0][0], &rq.spin[0][1],
                          &rq.spin[0][2], &rq.spin[1][0], &rq.spin[1][1], &rq.spin[1][2],
                          &fm_obj, &PyList_Type, &f_pairs, &r_obj, &rm_obj, &PyList_Type,
                          &r_pairs))
        return NULL;
    if (fm_obj != Py_None && !(rq.friction_model = PyUnicode_AsUTF8(fm_obj))) return NULL;
    if (rm_obj != Py_None && !(rq.rolling_model = PyUnicode_AsUTF8(rm_obj))) return NULL;
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
    PyObject *texts = PyList_New(0);
    if (!texts) return NULL;
    rq.params = params;
    rq.friction_params = friction_params;
    rq.rolling_params = rolling_params;
    const dem_law *law = law_find(name);
    if (param_texts("params", LAW_MAX_PARAMS * 2, law, pairs, texts, params, &rq.n_params) ||
        param_texts("friction_params", FRICTION_MAX_PARAMS * 2, NULL, f_pairs, texts,
                    friction_params, &rq.n_friction_params) ||
        param_texts("rolling_params", FRICTION_MAX_PARAMS * 2, NULL, r_pairs, texts,
                    rolling_params, &rq.n_rolling_params)) {
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
    if (out && sp.calibrate) {
        PyObject *cal = Py_BuildValue("{s:d}", law->calibration->coefficient, r.calibrated_value);
        if (!cal || PyDict_SetItemString(out, "calibrated", cal) != 0) Py_CLEAR(out);
        Py_XDECREF(cal);
    }
    return out;
}

static PyMethodDef core_methods[] = {
    {"laws", core_laws, METH_NOARGS, "every law the build knows, as dicts"},
    {"friction_laws", core_friction_laws, METH_NOARGS,
     "every tangential and rolling law the build knows, as dicts"},
    {"collide", core_collide, METH_VARARGS, "one binary collision (engine/collision.h)"},
    {NULL, NULL, 0, NULL}};

static struct PyModuleDef core_module = {PyModuleDef_HEAD_INIT, "dempact._core",
                                         "The C side of the dempact package.", -1, core_methods};

PyMODINIT_FUNC PyInit__core(void)
{
    if (PyType_Ready(&RunType) < 0) return NULL;
    PyObject *m = PyModule_Create(&core_module);
    if (!m) return NULL;
    Error = PyErr_NewException("dempact.Error", PyExc_RuntimeError, NULL);
    Py_INCREF(Error);
    Py_INCREF(&RunType);
    if (PyModule_AddObject(m, "Error", Error) < 0 ||
        PyModule_AddObject(m, "Run", (PyObject *)&RunType) < 0) {
        Py_DECREF(m);
        return NULL;
    }
    return m;
}
