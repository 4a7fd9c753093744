/* The hot path of the kernel's step API (interpreter/fast/steps.py), in C.
 *
 * A user's loop spends most of a decision in Python calls around the compiled rules:
 * is_terminal(), current_players(), legal_actions(p), random.choice on the legal actions (two
 * len() and one index) and apply(a, p). This module gives those calls C bodies for the common
 * case, a turn (one seat to choose) and the action the legal actions just built; every other case
 * (a simultaneous choice, an action to check, the end of the game, a stale list, a slice) calls
 * the Python methods of interpreter/fast/steps.py, which hold the rules of the step API. The
 * module is optional: steps.py has the same hot path in Python (_PyCore) and uses it when this
 * extension is not built.
 *
 * Two types:
 *   Core  the base of FastState: the fields the hot path reads (gen, records, _la, _offer,
 *         _textf, _texts, _sim, _seat, _n, _limit, _move, _over) and pointers into the state's RI
 *         and OPT arrays (bound by _bind; the arrays are kept alive by the buffers held).
 *   Turn  the base of FastActions: a turn's legal actions (state, n; n < 0: stale).
 * configure() gives the module the objects it needs from Python (see steps.py).
 */
#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <structmember.h>
#include <stdint.h>

/* set by configure() */
static PyObject *RulebookError = NULL;   /* raised for a stale list's length */
static PyObject *STALE = NULL;           /* its message */
static PyTypeObject *ActionType = NULL;  /* interpreter.model.state.Action (a namedtuple) */
static PyTypeObject *ActionsType = NULL; /* FastActions (a Python subclass of Turn) */
static PyObject *NOTHING = NULL;         /* no Action offered */
static Py_ssize_t RI_CHOSEN = -1;        /* RI's index of the chosen option */

static PyObject *s_apply_checked, *s_ended, *s_simultaneous, *s_too_long, *s_players_sim, *s_legal_sim,
    *s_item;

/* configure() was called (steps.py does, at import): else RuntimeError (the module imported on its own) */
static int
configured(void)
{
    if (RulebookError && STALE && ActionType && ActionsType && NOTHING)
        return 1;
    PyErr_SetString(PyExc_RuntimeError, "interpreter.fast._stepcore is used through interpreter.fast.steps, which configures it");
    return 0;
}

/* ---------------------------------------------------------------- Turn */

typedef struct {
    PyObject_HEAD
    PyObject *state;  /* the Core (FastState) whose turn this is */
    Py_ssize_t n;     /* options; < 0 once the position moved */
} TurnObject;

static PyTypeObject TurnType, CoreType;

/* the list's state is a Core bound to its arrays (SeatActions and a cleared list fail this: Python reads them) */
#define HOT_STATE(t) ((t)->state != NULL && PyObject_TypeCheck((t)->state, &CoreType) && ((CoreObject *)(t)->state)->bound)

/* ---------------------------------------------------------------- Core */

typedef struct {
    PyObject_HEAD
    /* all Python objects (seat, n, limit, move: ints; over: a bool), so that Python's slow paths
       read them as fast as a __slots__ field (3.11 specialises only object members) */
    PyObject *gen, *records, *la, *offer, *textf, *texts, *sim, *seat, *n, *limit, *move, *over;
    Py_buffer ri_view, opt_view;
    int bound;
    int64_t *ri, *vals, *mods;
} CoreObject;

static int
turn_traverse(TurnObject *self, visitproc visit, void *arg)
{
    Py_VISIT(self->state);
    return 0;
}

static int
turn_clear(TurnObject *self)
{
    Py_CLEAR(self->state);
    return 0;
}

static void
turn_dealloc(TurnObject *self)
{
    PyTypeObject *tp = Py_TYPE(self);
    PyObject_GC_UnTrack(self);
    turn_clear(self);
    tp->tp_free((PyObject *)self);  /* (a subclass's instance: subtype_dealloc lets go of its type) */
}

static Py_ssize_t
turn_length(TurnObject *self)
{
    if (self->n < 0) {
        if (configured())
            PyErr_SetObject(RulebookError, STALE);
        return -1;
    }
    return self->n;
}

/* The Action of option i (0 <= i < n) of a turn: (seat, its text, i), offered to apply. */
static PyObject *
turn_action(TurnObject *self, Py_ssize_t i)
{
    CoreObject *st = (CoreObject *)self->state;
    PyObject *args[2], *text, *action, *seat, *index, *textf;
    if (!configured())
        return NULL;
    if (st->textf == NULL || st->seat == NULL) {
        PyErr_SetString(PyExc_AttributeError, "a turn with no text maker or seat");
        return NULL;
    }
    /* n is a field anyone may set (the list's, or the state's _n): read OPT only inside its row */
    if (i >= st->opt_view.shape[1]) {
        PyErr_SetString(PyExc_IndexError, "legal action index out of range");
        return NULL;
    }
    args[0] = PyLong_FromLongLong(st->vals[i]);
    args[1] = PyLong_FromLongLong(st->mods[i]);
    if (args[0] == NULL || args[1] == NULL) {
        Py_XDECREF(args[0]);
        Py_XDECREF(args[1]);
        return NULL;
    }
    Py_INCREF(st);  /* (the text maker runs Python: held while it does) */
    textf = Py_NewRef(st->textf);
    text = PyObject_Vectorcall(textf, args, 2, NULL);
    Py_DECREF(textf);
    Py_DECREF(args[0]);
    Py_DECREF(args[1]);
    if (text == NULL || st->seat == NULL) {
        Py_XDECREF(text);
        Py_DECREF(st);
        if (!PyErr_Occurred())
            PyErr_SetString(PyExc_SystemError, "a turn with no seat");
        return NULL;
    }
    seat = Py_NewRef(st->seat);
    index = PyLong_FromSsize_t(i);
    action = ActionType->tp_alloc(ActionType, 3);
#if PY_VERSION_HEX >= 0x030E0000
    if (action != NULL)  /* 3.14 caches a tuple's hash, -1 for none yet: tp_alloc leaves 0, every Action's hash */
        ((PyTupleObject *)action)->ob_hash = -1;
#endif
    if (index == NULL || action == NULL) {
        Py_DECREF(seat);
        Py_XDECREF(index);
        Py_XDECREF(action);
        Py_DECREF(text);
        Py_DECREF(st);
        return NULL;
    }
    PyTuple_SET_ITEM(action, 0, seat);
    PyTuple_SET_ITEM(action, 1, text);
    PyTuple_SET_ITEM(action, 2, index);
    Py_INCREF(action);
    Py_XSETREF(st->offer, action);
    Py_DECREF(st);
    return action;
}

static PyObject *
turn_subscript(TurnObject *self, PyObject *key)
{
    /* the hot path: a whole number in range of a list that is not stale (stale: n < 0) */
    if (PyLong_CheckExact(key)) {
        Py_ssize_t i = PyLong_AsSsize_t(key);
        if (i == -1 && PyErr_Occurred())
            PyErr_Clear();
        else if (0 <= i && i < self->n && HOT_STATE(self))
            return turn_action(self, i);
    }
    return PyObject_CallMethodOneArg((PyObject *)self, s_item, key);
}

static PyObject *
turn_item(TurnObject *self, Py_ssize_t i)
{
    PyObject *key, *out;
    if (0 <= i && i < self->n && HOT_STATE(self))
        return turn_action(self, i);
    key = PyLong_FromSsize_t(i);
    if (key == NULL)
        return NULL;
    out = PyObject_CallMethodOneArg((PyObject *)self, s_item, key);
    Py_DECREF(key);
    return out;
}

static PyMemberDef turn_members[] = {
    {"state", T_OBJECT, offsetof(TurnObject, state), 0, "the FastState whose turn this is"},
    {"n", T_PYSSIZET, offsetof(TurnObject, n), 0, "the number of options (< 0: stale)"},
    {NULL}
};

static PySequenceMethods turn_as_sequence = {
    .sq_length = (lenfunc)turn_length,
    .sq_item = (ssizeargfunc)turn_item,
};

static PyMappingMethods turn_as_mapping = {
    .mp_length = (lenfunc)turn_length,
    .mp_subscript = (binaryfunc)turn_subscript,
};

static PyTypeObject TurnType = {
    PyVarObject_HEAD_INIT(NULL, 0)
    .tp_name = "interpreter.fast._stepcore.Turn",
    .tp_basicsize = sizeof(TurnObject),
    .tp_flags = Py_TPFLAGS_DEFAULT | Py_TPFLAGS_BASETYPE | Py_TPFLAGS_HAVE_GC,
    .tp_doc = "The C base of FastActions: a turn's legal actions (len and index in C).",
    .tp_traverse = (traverseproc)turn_traverse,
    .tp_clear = (inquiry)turn_clear,
    .tp_dealloc = (destructor)turn_dealloc,
    .tp_as_sequence = &turn_as_sequence,
    .tp_as_mapping = &turn_as_mapping,
    .tp_members = turn_members,
    .tp_new = PyType_GenericNew,
};

/* ---------------------------------------------------------------- Core methods */

static int
core_traverse(CoreObject *self, visitproc visit, void *arg)
{
    Py_VISIT(self->gen);
    Py_VISIT(self->records);
    Py_VISIT(self->la);
    Py_VISIT(self->offer);
    Py_VISIT(self->textf);
    Py_VISIT(self->texts);
    Py_VISIT(self->sim);
    Py_VISIT(self->seat);
    Py_VISIT(self->n);
    Py_VISIT(self->limit);
    Py_VISIT(self->move);
    Py_VISIT(self->over);
    if (self->bound) {
        Py_VISIT(self->ri_view.obj);
        Py_VISIT(self->opt_view.obj);
    }
    return 0;
}

static void
core_unbind(CoreObject *self)
{
    if (self->bound) {
        self->bound = 0;
        self->ri = self->vals = self->mods = NULL;
        PyBuffer_Release(&self->ri_view);
        PyBuffer_Release(&self->opt_view);
    }
}

static int
core_clear(CoreObject *self)
{
    core_unbind(self);
    Py_CLEAR(self->gen);
    Py_CLEAR(self->records);
    Py_CLEAR(self->la);
    Py_CLEAR(self->offer);
    Py_CLEAR(self->textf);
    Py_CLEAR(self->texts);
    Py_CLEAR(self->sim);
    Py_CLEAR(self->seat);
    Py_CLEAR(self->n);
    Py_CLEAR(self->limit);
    Py_CLEAR(self->move);
    Py_CLEAR(self->over);
    return 0;
}

static void
core_dealloc(CoreObject *self)
{
    PyTypeObject *tp = Py_TYPE(self);
    PyObject_GC_UnTrack(self);
    core_clear(self);
    tp->tp_free((PyObject *)self);  /* (a subclass's instance: subtype_dealloc lets go of its type) */
}

static int
int64_view(PyObject *array, Py_buffer *view, const char *what)
{
    if (PyObject_GetBuffer(array, view, PyBUF_WRITABLE | PyBUF_C_CONTIGUOUS | PyBUF_FORMAT) < 0)
        return -1;
    if (view->itemsize != 8 || view->format == NULL || (strcmp(view->format, "l") && strcmp(view->format, "q")
                                                         && strcmp(view->format, "<l") && strcmp(view->format, "<q")
                                                         && strcmp(view->format, "=l") && strcmp(view->format, "=q"))) {
        PyBuffer_Release(view);
        PyErr_Format(PyExc_TypeError, "_bind: %s must be a C-contiguous int64 array", what);
        return -1;
    }
    return 0;
}

/* _bind(RI, OPT): the hot path reads the chosen option's slot in RI and the options in OPT's two rows. */
static PyObject *
core_bind(CoreObject *self, PyObject *const *args, Py_ssize_t nargs)
{
    Py_buffer ri, opt;
    if (nargs != 2) {
        PyErr_SetString(PyExc_TypeError, "_bind(RI, OPT) takes two arrays");
        return NULL;
    }
    if (int64_view(args[0], &ri, "RI") < 0)
        return NULL;
    if (int64_view(args[1], &opt, "OPT") < 0) {
        PyBuffer_Release(&ri);
        return NULL;
    }
    if (ri.ndim != 1 || ri.shape[0] <= RI_CHOSEN || opt.ndim != 2 || opt.shape[0] != 2) {
        PyBuffer_Release(&ri);
        PyBuffer_Release(&opt);
        PyErr_SetString(PyExc_TypeError, "_bind: RI must be one row past RI_CHOSEN, OPT two rows");
        return NULL;
    }
    core_unbind(self);
    self->ri_view = ri;
    self->opt_view = opt;
    self->ri = (int64_t *)ri.buf;
    self->vals = (int64_t *)opt.buf;
    self->mods = self->vals + opt.shape[1];
    self->bound = 1;
    Py_RETURN_NONE;
}

/* the fields the hot path reads are set (FastState.__init__ sets them): else AttributeError */
static int
core_ready(CoreObject *self)
{
    if (self->gen && self->records && self->la && self->offer && self->texts && self->sim && self->seat && self->n
        && self->limit && self->move && self->over)
        return configured();
    PyErr_SetString(PyExc_AttributeError, "this FastState's fields are not set (make one with game.new_state(..., fast=True))");
    return 0;
}

/* a whole-number field as a C number (-1 with an error for another object) */
static Py_ssize_t
whole(PyObject *v)
{
    Py_ssize_t x = PyLong_AsSsize_t(v);
    return x == -1 && PyErr_Occurred() ? -1 : x;
}

static PyObject *
core_is_terminal(CoreObject *self, PyObject *unused)
{
    if (!core_ready(self))
        return NULL;
    return Py_NewRef(self->over);
}

static PyObject *
core_current_players(CoreObject *self, PyObject *unused)
{
    PyObject *out;
    if (!core_ready(self))
        return NULL;
    if (self->sim != Py_None)
        return PyObject_CallMethodNoArgs((PyObject *)self, s_players_sim);
    if (self->over == Py_True)
        return PyList_New(0);
    out = PyList_New(1);
    if (out == NULL)
        return NULL;
    PyList_SET_ITEM(out, 0, Py_NewRef(self->seat));
    return out;
}

/* one optional argument, positional or by keyword: *player (NULL when not given) */
static int
player_argument(const char *fname, PyObject *const *args, Py_ssize_t nargs, PyObject *kwnames, Py_ssize_t at,
                PyObject **player)
{
    Py_ssize_t nkw = kwnames == NULL ? 0 : PyTuple_GET_SIZE(kwnames);
    *player = nargs > at ? args[at] : NULL;
    if (nargs > at + 1) {
        PyErr_Format(PyExc_TypeError, "%s() takes at most %zd arguments (%zd given)", fname, at + 1, nargs);
        return -1;
    }
    for (Py_ssize_t k = 0; k < nkw; k++) {
        PyObject *name = PyTuple_GET_ITEM(kwnames, k);
        if (!PyUnicode_Check(name) || PyUnicode_CompareWithASCIIString(name, "player") != 0 || *player != NULL) {
            PyErr_Format(PyExc_TypeError, "%s() got an unexpected keyword argument %R", fname, name);
            return -1;
        }
        *player = args[nargs + k];
    }
    return 0;
}

/* the player argument names the seat to choose now: 1, another seat or object: 0, -1 on error */
static int
is_seat(CoreObject *self, PyObject *player)
{
    if (player == self->seat)  /* (small ints are shared) */
        return 1;
    return PyObject_RichCompareBool(player, self->seat, Py_EQ);
}

static PyObject *
core_legal_actions(CoreObject *self, PyObject *const *args, Py_ssize_t nargs, PyObject *kwnames)
{
    PyObject *player;
    if (player_argument("legal_actions", args, nargs, kwnames, 0, &player) < 0 || !core_ready(self))
        return NULL;
    if (self->sim != Py_None)
        return PyObject_CallMethodOneArg((PyObject *)self, s_legal_sim, player ? player : Py_None);
    if (self->over == Py_True)
        return PyList_New(0);
    if (player != NULL && player != Py_None) {
        int ok = is_seat(self, player);
        if (ok < 0)
            return NULL;
        if (!ok)
            return PyList_New(0);
        if (!core_ready(self))  /* (the player's __eq__ is Python: it may have deleted fields) */
            return NULL;
    }
    TurnObject *la = (TurnObject *)self->la;
    if (!PyObject_TypeCheck(la, &TurnType) || la->n < 0) {  /* one list per position */
        Py_ssize_t n = whole(self->n);
        if (n < 0)
            return NULL;
        la = (TurnObject *)ActionsType->tp_alloc(ActionsType, 0);
        if (la == NULL)
            return NULL;
        Py_INCREF(self);
        la->state = (PyObject *)self;
        la->n = n;
        Py_XSETREF(self->la, (PyObject *)la);
    }
    Py_INCREF(la);
    return (PyObject *)la;
}

/* the rules ran to the next choice: ask is what the generator yielded (seat, options, site) */
static PyObject *
core_moved(CoreObject *self, PyObject *ask_obj)
{
    long long ask = PyLong_AsLongLong(ask_obj);
    Py_DECREF(ask_obj);
    if (ask == -1 && PyErr_Occurred())
        return NULL;
    Py_ssize_t site = (Py_ssize_t)(ask >> 36), seat = (Py_ssize_t)(ask & 0xFFFF);
    PyObject *seat_obj, *n_obj;
    if (!PyList_Check(self->texts) || site < 0 || site >= PyList_GET_SIZE(self->texts)) {
        PyErr_SetString(PyExc_SystemError, "the kernel named a choice site with no text maker");
        return NULL;
    }
    seat_obj = PyLong_FromSsize_t(seat);
    n_obj = PyLong_FromSsize_t((Py_ssize_t)((ask >> 16) & 0xFFFFF));
    if (seat_obj == NULL || n_obj == NULL) {
        Py_XDECREF(seat_obj);
        Py_XDECREF(n_obj);
        return NULL;
    }
    Py_XSETREF(self->seat, seat_obj);
    Py_XSETREF(self->n, n_obj);
    PyObject *textf = PyList_GET_ITEM(self->texts, site);
    Py_INCREF(textf);
    Py_XSETREF(self->textf, textf);
    if (seat == 0xFFFF) {
        Py_ssize_t move = whole(self->move);
        PyObject *k, *out;
        if (move < 0)
            return NULL;
        if ((k = PyLong_FromSsize_t(move + 1)) == NULL)
            return NULL;
        Py_XSETREF(self->move, k);
        if ((k = PyLong_FromSsize_t(site)) == NULL)
            return NULL;
        out = PyObject_CallMethodOneArg((PyObject *)self, s_simultaneous, k);
        Py_DECREF(k);
        if (out == NULL)
            return NULL;
        Py_DECREF(out);
    }
    Py_RETURN_NONE;
}

static PyObject *
core_apply(CoreObject *self, PyObject *const *args, Py_ssize_t nargs, PyObject *kwnames)
{
    PyObject *action, *player, *ask, *out;
    Py_ssize_t nkw = kwnames == NULL ? 0 : PyTuple_GET_SIZE(kwnames);
    if (nargs >= 1) {
        action = args[0];
        if (player_argument("apply", args, nargs, kwnames, 1, &player) < 0)
            return NULL;
    } else {  /* apply(action=..., player=...): the slow path reads them */
        action = NULL;
        player = NULL;
        for (Py_ssize_t k = 0; k < nkw; k++) {
            PyObject *name = PyTuple_GET_ITEM(kwnames, k);
            if (PyUnicode_Check(name) && PyUnicode_CompareWithASCIIString(name, "action") == 0 && action == NULL)
                action = args[k];
            else if (PyUnicode_Check(name) && PyUnicode_CompareWithASCIIString(name, "player") == 0 && player == NULL)
                player = args[k];
            else {
                PyErr_Format(PyExc_TypeError, "apply() got an unexpected keyword argument %R", name);
                return NULL;
            }
        }
        if (action == NULL) {
            PyErr_SetString(PyExc_TypeError, "apply() missing 1 required argument: 'action'");
            return NULL;
        }
    }
    if (player == Py_None)
        player = NULL;
    /* the Action the legal actions just built is legal for its seat (a turn's): only the player
       given is left to check */
    if (!core_ready(self))
        return NULL;
    int fast = action == self->offer && self->bound && PyTuple_Check(action) && PyTuple_GET_SIZE(action) == 3
               && PyLong_CheckExact(PyTuple_GET_ITEM(action, 2))  /* (another object's __index__ would run Python) */
               && self->sim == Py_None && PyList_CheckExact(self->records);
    if (fast && player != NULL) {  /* a whole number, that seat */
        if (!PyLong_CheckExact(player))
            fast = 0;
        else if (player != self->seat) {
            fast = PyObject_RichCompareBool(player, self->seat, Py_EQ);
            if (fast < 0)
                return NULL;
        }
    }
    if (!fast)
        return PyObject_CallMethodObjArgs((PyObject *)self, s_apply_checked, action, player ? player : Py_None, NULL);
    long long chosen = PyLong_AsLongLong(PyTuple_GET_ITEM(action, 2));
    if (chosen == -1 && PyErr_Occurred())
        return NULL;
    Py_ssize_t n = whole(self->n);
    if (n == -1 && PyErr_Occurred())
        return NULL;
    /* the rules index the options by it unchecked: an offer not of this position (its list's n or the
       state's fields set by hand) is checked as any other action */
    if (chosen < 0 || chosen >= n || !PyIter_Check(self->gen))
        return PyObject_CallMethodObjArgs((PyObject *)self, s_apply_checked, action, player ? player : Py_None, NULL);
    Py_ssize_t limit = whole(self->limit);
    if (limit == -1 && PyErr_Occurred())
        return NULL;
    if (PyList_GET_SIZE(self->records) >= limit) {
        out = PyObject_CallMethodOneArg((PyObject *)self, s_too_long, action);  /* raises */
        if (out == NULL)
            return NULL;
        Py_DECREF(out);
    }
    if (PyList_Append(self->records, action) < 0)
        return NULL;
    Py_INCREF(NOTHING);
    Py_XSETREF(self->offer, NOTHING);
    self->ri[RI_CHOSEN] = chosen;
    if (PyObject_TypeCheck(self->la, &TurnType))
        ((TurnObject *)self->la)->n = -1;  /* the position moves: its list is stale */
    ask = Py_TYPE(self->gen)->tp_iternext(self->gen);  /* (an iterator: PyIter_Check above) */
    if (ask == NULL) {
        if (PyErr_Occurred()) {
            if (!PyErr_ExceptionMatches(PyExc_StopIteration))
                return NULL;
            PyErr_Clear();
        }
        return PyObject_CallMethodNoArgs((PyObject *)self, s_ended);
    }
    return core_moved(self, ask);
}

static PyMethodDef core_methods[] = {
    {"_bind", (PyCFunction)(void (*)(void))core_bind, METH_FASTCALL,
     "_bind(RI, OPT): the arrays the hot path reads and writes (C-contiguous int64; OPT has two rows)."},
    {"is_terminal", (PyCFunction)core_is_terminal, METH_NOARGS, "True when the game is over."},
    {"current_players", (PyCFunction)core_current_players, METH_NOARGS,
     "Seats that must choose now: [seat] in a turn, every seat yet to choose in a simultaneous choice "
     "(in the choice's order), [] when the game is over."},
    {"legal_actions", (PyCFunction)(void (*)(void))core_legal_actions, METH_FASTCALL | METH_KEYWORDS,
     "legal_actions(player=None): the legal actions (a sequence of Action, as the State's: same texts, "
     "same order) of player (default: the first player to choose, as the State's); empty for anyone else."},
    {"apply", (PyCFunction)(void (*)(void))core_apply, METH_FASTCALL | METH_KEYWORDS,
     "apply(action, player=None): apply action (an Action, its text, or its index in legal_actions) for "
     "player (default: the action's player, or the only player to choose) and run the rules to the next "
     "choice. Raises IllegalAction with the reason, leaving the state unchanged, when the game is over, "
     "the player is not to act, or the action is not legal."},
    {NULL}
};

static PyMemberDef core_members[] = {
    {"gen", T_OBJECT_EX, offsetof(CoreObject, gen), 0, "the compiled rules' generator"},
    {"records", T_OBJECT_EX, offsetof(CoreObject, records), 0, "the Action of every move, in order"},
    {"_la", T_OBJECT_EX, offsetof(CoreObject, la), 0, NULL},
    {"_offer", T_OBJECT_EX, offsetof(CoreObject, offer), 0, NULL},
    {"_textf", T_OBJECT_EX, offsetof(CoreObject, textf), 0, NULL},
    {"_texts", T_OBJECT_EX, offsetof(CoreObject, texts), 0, NULL},
    {"_sim", T_OBJECT_EX, offsetof(CoreObject, sim), 0, NULL},
    {"_seat", T_OBJECT_EX, offsetof(CoreObject, seat), 0, NULL},
    {"_n", T_OBJECT_EX, offsetof(CoreObject, n), 0, NULL},
    {"_limit", T_OBJECT_EX, offsetof(CoreObject, limit), 0, NULL},
    {"_move", T_OBJECT_EX, offsetof(CoreObject, move), 0, NULL},
    {"_over", T_OBJECT_EX, offsetof(CoreObject, over), 0, NULL},
    {NULL}
};

static PyTypeObject CoreType = {
    PyVarObject_HEAD_INIT(NULL, 0)
    .tp_name = "interpreter.fast._stepcore.Core",
    .tp_basicsize = sizeof(CoreObject),
    .tp_flags = Py_TPFLAGS_DEFAULT | Py_TPFLAGS_BASETYPE | Py_TPFLAGS_HAVE_GC,
    .tp_doc = "The C base of FastState: its hot path (see interpreter/fast/steps.py).",
    .tp_traverse = (traverseproc)core_traverse,
    .tp_clear = (inquiry)core_clear,
    .tp_dealloc = (destructor)core_dealloc,
    .tp_methods = core_methods,
    .tp_members = core_members,
    .tp_new = PyType_GenericNew,
};

/* ---------------------------------------------------------------- module */

static PyObject *
configure(PyObject *module, PyObject *args)
{
    PyObject *error, *stale, *action, *actions, *nothing;
    Py_ssize_t chosen;
    if (!PyArg_ParseTuple(args, "OUO!O!On:configure", &error, &stale, &PyType_Type, &action, &PyType_Type,
                          &actions, &nothing, &chosen))
        return NULL;
    if (!PyType_IsSubtype((PyTypeObject *)action, &PyTuple_Type)
        || !PyType_IsSubtype((PyTypeObject *)actions, &TurnType) || chosen < 0) {
        PyErr_SetString(PyExc_TypeError, "configure: Action must be a tuple type, FastActions a Turn type");
        return NULL;
    }
    Py_INCREF(error);
    Py_XSETREF(RulebookError, error);
    Py_INCREF(stale);
    Py_XSETREF(STALE, stale);
    Py_INCREF(action);
    Py_XSETREF(ActionType, (PyTypeObject *)action);
    Py_INCREF(actions);
    Py_XSETREF(ActionsType, (PyTypeObject *)actions);
    Py_INCREF(nothing);
    Py_XSETREF(NOTHING, nothing);
    RI_CHOSEN = chosen;
    Py_RETURN_NONE;
}

static PyMethodDef module_methods[] = {
    {"configure", configure, METH_VARARGS,
     "configure(RulebookError, stale_message, Action, FastActions, NOTHING, RI_CHOSEN): what the hot path "
     "raises, builds and writes."},
    {NULL}
};

static struct PyModuleDef stepcore_module = {
    PyModuleDef_HEAD_INIT, "_stepcore", "The hot path of the kernel's step API (see interpreter/fast/steps.py).",
    -1, module_methods,
};

PyMODINIT_FUNC
PyInit__stepcore(void)
{
    PyObject *m;
#define INTERN(var, text) if ((var = PyUnicode_InternFromString(text)) == NULL) return NULL
    INTERN(s_apply_checked, "_apply_checked");
    INTERN(s_ended, "_ended");
    INTERN(s_simultaneous, "_simultaneous");
    INTERN(s_too_long, "_too_long");
    INTERN(s_players_sim, "_players_sim");
    INTERN(s_legal_sim, "_legal_sim");
    INTERN(s_item, "_item");
#undef INTERN
    if (PyType_Ready(&TurnType) < 0 || PyType_Ready(&CoreType) < 0)
        return NULL;
    m = PyModule_Create(&stepcore_module);
    if (m == NULL)
        return NULL;
    Py_INCREF(&TurnType);
    if (PyModule_AddObject(m, "Turn", (PyObject *)&TurnType) < 0) {
        Py_DECREF(&TurnType);
        Py_DECREF(m);
        return NULL;
    }
    Py_INCREF(&CoreType);
    if (PyModule_AddObject(m, "Core", (PyObject *)&CoreType) < 0) {
        Py_DECREF(&CoreType);
        Py_DECREF(m);
        return NULL;
    }
    return m;
}
