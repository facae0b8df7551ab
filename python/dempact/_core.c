/* dempact._core: the C side of the Python package. A Run wraps io/session/dempact_api.h (one
 * simulation); laws() and friction_laws() (_laws.c) read the law registries, collide()
 * (_collide.c) runs engine/collide/collision.h.
 * Arrays cross as bytes (the package's __init__.py makes read-only numpy arrays of
 * them), every per-particle array in the order of the particles' ids. Errors raise
 * dempact.Error with the engine's message. */
#define PY_SSIZE_T_CLEAN
#include <Python.h>

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "_core.h"
#include "engine/step/friction.h"
#include "io/session/dempact_api.h"
#include "_forces.h"

PyObject *Error;

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
    const particle_store *p = &self->run.ss.s.p;
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
    int is_vec = vec[0] || !strcmp(name, "torque");
    size_t n = p->n_local, width = is_vec ? 3 : 1;
    size_t *order = id_order(p);
    if (!order) return NULL;
    PyObject *out = PyBytes_FromStringAndSize(NULL, (Py_ssize_t)(n * width * 8));
    if (out) {
        char *buf = PyBytes_AS_STRING(out);
        for (size_t k = 0; k < n; k++) {
            size_t i = order[k];
            if (is_id) memcpy(buf + 8 * k, &p->id[i], 8);
            else if (scalar) memcpy(buf + 8 * k, &scalar[i], 8);
            else if (!vec[0]) /* no torques held (particles.h): all zero */
                memset(buf + 8 * 3 * k, 0, 24);
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
    particle_store *p = &self->run.ss.s.p;
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
    const contact_list *c = &self->run.ss.s.pairs;
    const particle_store *p = &self->run.ss.s.p;
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
        /* a run of the package records every step's (run_driver.record_always) */
        for (int a = 0; a < 3; a++) f[3 * r + a] = c->force[0] ? c->force[a][k] : NAN;
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
    const sim *s = &self->run.ss.s;
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
                         "end_time", self->run.ss.cfg.end_time, "name", self->run.ss.cfg.name,
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
    .tp_doc = "One simulation of a case (io/session/dempact_api.h).",
};

static PyMethodDef core_methods[] = {
    {"laws", core_laws, METH_NOARGS, "every law the build knows, as dicts"},
    {"friction_laws", core_friction_laws, METH_NOARGS,
     "every tangential and rolling law the build knows, as dicts"},
    {"collide", core_collide, METH_VARARGS, "one binary collision (engine/collide/collision.h)"},
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
