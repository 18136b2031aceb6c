/* Start a run's leader inside its cgroup: clone3(CLONE_INTO_CGROUP), then execve.
 *
 * A process that writes its PID into a cgroup.procs file migrates, and a migration takes the
 * kernel's cgroup thread-group lock for writing, which (unless cgroup2 is mounted with
 * favordynmods) waits for an RCU grace period: 5-20 ms after an idle spell, on the run's
 * critical path. A process cloned into its cgroup never migrates, so it never waits for that.
 * Python's subprocess cannot ask for it, hence this piece.
 *
 * The child shares this process's memory until it executes, and this thread waits meanwhile
 * (CLONE_VM | CLONE_VFORK, as glibc's posix_spawn and CPython's subprocess do with vfork): no
 * page table is copied, which in a process of this size costs milliseconds of CPU per start.
 * It runs on a stack of its own, through a few lines of assembly (x86-64 only; elsewhere spawn
 * raises ENOSYS and the service's probe falls back to leaders joining their cgroup).
 *
 * The child does what subprocess.Popen(start_new_session=True, close_fds=True,
 * restore_signals=True) does, and nothing else: only system calls, no allocation, no lock, no
 * Python, which is what a child of a multi-threaded process may do before it executes:
 *   handlers reset to SIG_DFL (SIGPIPE and SIGXFSZ too), the caller's signal mask restored,
 *   setsid(), stdin/stdout/stderr from the given descriptors, chdir(cwd), every other
 *   descriptor close-on-exec (close_range), execve(path, argv, envp).
 * A step that fails records (step, errno) in the parent's memory and ends the child (127); the
 * parent reaps it and raises OSError.
 *
 * Two additions serve a run whose leader would otherwise be a /bin/sh prologue (an exec, about
 * a millisecond of every run here): the signals given are left ignored (what the prologue's
 * trap '' does for bubblewrap), and a gated child reads its gate, its stdin, once every step
 * that can fail is done: "go\n" and it takes /dev/null as stdin and executes; anything else,
 * end of file included, ends it with 125 before anything of the command ran (the prologue's
 * gate). The calling thread waits until then, so a gated start is made off the event loop.
 */
#define PY_SSIZE_T_CLEAN
#include <Python.h>

#include <errno.h>
#include <fcntl.h>
#include <linux/sched.h>
#include <signal.h>
#include <string.h>
#include <stdint.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#ifndef CLONE_INTO_CGROUP
#define CLONE_INTO_CGROUP 0x200000000ULL
#endif
#ifndef SYS_clone3
#define SYS_clone3 435
#endif
#ifndef SYS_close_range
#define SYS_close_range 436
#endif
#ifndef CLOSE_RANGE_CLOEXEC
#define CLOSE_RANGE_CLOEXEC (1U << 2)
#endif

/* The step a failed child reached, as the parent reports it. */
enum { STEP_FDS = 1, STEP_SETSID, STEP_CHDIR, STEP_CLOSE_RANGE, STEP_EXEC, STEP_SIGNALS, STEP_GATE };

/* A gated child that is not let through exits with this (the prologue's gate does too). */
#define GATE_REFUSED 125

struct clone3_args {
    unsigned long long flags, pidfd, child_tid, parent_tid, exit_signal, stack, stack_size, tls,
        set_tid, set_tid_size, cgroup;
};

/* What the child needs, in the parent's memory (the child shares it until it executes). */
struct child {
    int fds[3];
    const char *cwd;
    const char *path;
    char *const *argv;
    char *const *envp;
    const sigset_t *mask;
    /* Left ignored (SIG_IGN) instead of reset. */
    sigset_t ignored;
    /* Read the gate on stdin before executing. */
    int gated;
    /* Written by a child that fails; read by the parent once the child has exited. */
    volatile int step;
    volatile int error;
};

#define CHILD_STACK_SIZE (64 * 1024)

#if defined(__x86_64__) && !defined(__ILP32__)
/* long maka_clone3(struct clone3_args *, size_t, int (*fn)(void *), void *arg): clone3; the
 * child, on the stack the arguments give it, calls fn(arg) and exits with its result; the
 * parent gets the raw result (a PID, or -errno). As glibc's clone() does for clone. */
__asm__(".text\n"
        ".globl maka_clone3\n"
        ".hidden maka_clone3\n"
        ".type maka_clone3, %function\n"
        "maka_clone3:\n"
        "  mov %rdx, %r8\n"  /* fn: syscall keeps r8 and r9 (it clobbers rcx and r11) */
        "  mov %rcx, %r9\n"  /* arg */
        "  mov $435, %eax\n" /* clone3 */
        "  syscall\n"
        "  test %rax, %rax\n"
        "  jnz 1f\n"
        "  xor %ebp, %ebp\n" /* the child: the outermost frame of its own stack */
        "  mov %r9, %rdi\n"
        "  call *%r8\n"
        "  mov %eax, %edi\n"
        "  mov $231, %eax\n" /* exit_group */
        "  syscall\n"
        "  hlt\n"
        "1:\n"
        "  ret\n"
        ".size maka_clone3, .-maka_clone3\n");
long maka_clone3(struct clone3_args *args, size_t size, int (*fn)(void *), void *arg);
#define HAVE_CLONE3_TRAMPOLINE 1
#else
#define HAVE_CLONE3_TRAMPOLINE 0
#endif

__attribute__((noreturn)) static void fail_child(struct child *child, int step) {
    child->error = errno;
    child->step = step;
    for (;;) {
        syscall(SYS_exit_group, 127);
    }
}

static void reset_signals(struct child *child) {
    struct sigaction dfl;
    memset(&dfl, 0, sizeof dfl);
    dfl.sa_handler = SIG_DFL;
    for (int sig = 1; sig < NSIG; sig++) {
        struct sigaction now;
        if (sig == SIGKILL || sig == SIGSTOP || sigaction(sig, NULL, &now) != 0) {
            continue;
        }
        if (sigismember(&child->ignored, sig) == 1) {
            struct sigaction ign;
            memset(&ign, 0, sizeof ign);
            ign.sa_handler = SIG_IGN;
            sigaction(sig, &ign, NULL);
        } else if (now.sa_handler != SIG_DFL &&
                   (now.sa_handler != SIG_IGN || sig == SIGPIPE || sig == SIGXFSZ)) {
            sigaction(sig, &dfl, NULL);
        }
    }
    if (sigprocmask(SIG_SETMASK, child->mask, NULL) != 0) {
        fail_child(child, STEP_SIGNALS);
    }
}

/* Read "go\n" from stdin (byte by byte, as a shell's read does, so nothing after it is taken),
 * then put /dev/null in its place; anything else ends the child with GATE_REFUSED. */
static void pass_gate(struct child *child) {
    char got[2];
    size_t n = 0;
    for (;;) {
        char c;
        ssize_t r = read(0, &c, 1);
        if (r < 0 && errno == EINTR) {
            continue;
        }
        if (r != 1 || (c != '\n' && n == sizeof got)) {
            syscall(SYS_exit_group, GATE_REFUSED);
        }
        if (c == '\n') {
            break;
        }
        got[n++] = c;
    }
    if (n != 2 || got[0] != 'g' || got[1] != 'o') {
        syscall(SYS_exit_group, GATE_REFUSED);
    }
    int null = open("/dev/null", O_RDWR);
    if (null < 0 || dup2(null, 0) < 0) {
        fail_child(child, STEP_GATE);
    }
    if (null != 0) {
        close(null);
    }
}

static int run_child(void *arg) {
    struct child *child = arg;
    int moved[3];
    reset_signals(child);
    if (setsid() < 0) {
        fail_child(child, STEP_SETSID);
    }
    /* Above 2 first, so that no descriptor is overwritten before it is used. */
    for (int i = 0; i < 3; i++) {
        moved[i] = fcntl(child->fds[i], F_DUPFD, 3);
        if (moved[i] < 0) {
            fail_child(child, STEP_FDS);
        }
    }
    for (int i = 0; i < 3; i++) {
        if (dup2(moved[i], i) < 0) {
            fail_child(child, STEP_FDS);
        }
    }
    if (child->cwd != NULL && chdir(child->cwd) != 0) {
        fail_child(child, STEP_CHDIR);
    }
    /* A gated child waits before it executes: it closes the rest now, or the copy it holds
     * of its gate's write end (and of every other run's) would keep the gate from ever
     * reaching end of file. Otherwise they close at execve. */
    if (syscall(SYS_close_range, 3U, ~0U, child->gated ? 0U : CLOSE_RANGE_CLOEXEC) != 0) {
        fail_child(child, STEP_CLOSE_RANGE);
    }
    if (child->gated) {
        pass_gate(child);
    }
    execve(child->path, child->argv, child->envp);
    fail_child(child, STEP_EXEC);
}

/* A NULL-terminated array of the bytes objects in the tuple *seq*, pointing into them (a
 * tuple, which no other thread can change while the GIL is released, keeps them alive); NULL
 * with an exception set on error. */
static char **string_array(PyObject *seq, const char *what) {
    Py_ssize_t n = PyTuple_GET_SIZE(seq);
    char **array = PyMem_Calloc((size_t)n + 1, sizeof(char *));
    if (array == NULL) {
        PyErr_NoMemory();
        return NULL;
    }
    for (Py_ssize_t i = 0; i < n; i++) {
        PyObject *item = PyTuple_GET_ITEM(seq, i);
        char *data;
        Py_ssize_t size;
        if (!PyBytes_Check(item) || PyBytes_AsStringAndSize(item, &data, &size) < 0 ||
            (Py_ssize_t)strlen(data) != size) {
            PyErr_Format(PyExc_ValueError, "%s: every item must be bytes without NUL", what);
            PyMem_Free(array);
            return NULL;
        }
        array[i] = data;
    }
    return array;
}

/* OSError(errno, "<strerror> (the child's <step>)"[, filename]). */
static PyObject *raise_step(int step, int error, PyObject *cwd, PyObject *path) {
    static const char *names[] = {"?",      "descriptors", "setsid", "chdir", "close_range",
                                  "execve", "signal mask", "gate"};
    const char *name = step > 0 && step <= STEP_GATE ? names[step] : names[0];
    PyObject *named = step == STEP_CHDIR ? cwd : step == STEP_EXEC ? path : Py_None;
    PyObject *filename = named == Py_None ? Py_NewRef(Py_None)
                                          : PyUnicode_DecodeFSDefault(PyBytes_AS_STRING(named));
    if (filename == NULL) {
        return NULL;
    }
    PyObject *exc = PyObject_CallFunction(PyExc_OSError, "isO", error, strerror(error), filename);
    Py_DECREF(filename);
    if (exc == NULL) {
        return NULL;
    }
    PyObject *text = PyUnicode_FromFormat("%s (the child's %s)", strerror(error), name);
    if (text != NULL) {
        PyObject_SetAttrString(exc, "strerror", text);
        Py_DECREF(text);
    }
    PyErr_SetObject((PyObject *)Py_TYPE(exc), exc);
    Py_DECREF(exc);
    return NULL;
}

/* Clone the child into *cgroup* sharing this process's memory, this thread suspended until
 * the child has executed or ended (CLONE_VM | CLONE_VFORK: no page table copied, as
 * posix_spawn does); a child that failed is reaped. Returns its PID or -1 with errno set. */
static long start(struct child *child, int cgroup) {
#if HAVE_CLONE3_TRAMPOLINE
    long pid = -1;
    int error = 0;
    Py_BEGIN_ALLOW_THREADS
    /* A guard page below the stack: an overflow faults instead of writing into this process's
     * memory (the child shares it). */
    size_t guard = (size_t)sysconf(_SC_PAGESIZE);
    char *mapped = mmap(NULL, guard + CHILD_STACK_SIZE, PROT_READ | PROT_WRITE,
                        MAP_PRIVATE | MAP_ANONYMOUS | MAP_STACK, -1, 0);
    if (mapped == MAP_FAILED || mprotect(mapped, guard, PROT_NONE) != 0) {
        error = errno;
        if (mapped != MAP_FAILED) {
            munmap(mapped, guard + CHILD_STACK_SIZE);
        }
    } else {
        char *stack = mapped + guard;
        struct clone3_args args = {0};
        args.flags = CLONE_VM | CLONE_VFORK | CLONE_INTO_CGROUP;
        args.exit_signal = SIGCHLD;
        args.stack = (unsigned long long)(uintptr_t)stack;
        args.stack_size = CHILD_STACK_SIZE;
        args.cgroup = (unsigned long long)cgroup;
        sigset_t all, old;
        sigfillset(&all);
        /* Blocked across the clone, so that no handler of this process runs in the child
         * (on this process's memory) before it has reset them; it restores *old* itself. */
        pthread_sigmask(SIG_SETMASK, &all, &old);
        child->mask = &old;
        pid = maka_clone3(&args, sizeof args, run_child, child);
        pthread_sigmask(SIG_SETMASK, &old, NULL);
        if (pid < 0) {
            error = (int)-pid;
            pid = -1;
        } else if (child->step != 0) {
            int status;
            while (waitpid((pid_t)pid, &status, 0) < 0 && errno == EINTR) {
            }
        }
        munmap(mapped, guard + CHILD_STACK_SIZE);
    }
    Py_END_ALLOW_THREADS
    errno = error;
    return pid;
#else
    (void)child;
    (void)cgroup;
    errno = ENOSYS;
    return -1;
#endif
}

static PyObject *spawn(PyObject *module, PyObject *args) {
    PyObject *path, *argv_list, *envp_list, *cwd, *ignored = NULL;
    int fds[3], cgroup, gated = 0;
    (void)module;
    if (!PyArg_ParseTuple(args, "O!O!O!O(iii)i|pO!", &PyBytes_Type, &path, &PyList_Type,
                          &argv_list, &PyList_Type, &envp_list, &cwd, &fds[0], &fds[1],
                          &fds[2], &cgroup, &gated, &PyTuple_Type, &ignored)) {
        return NULL;
    }
    sigset_t ignored_set;
    sigemptyset(&ignored_set);
    for (Py_ssize_t i = 0; ignored != NULL && i < PyTuple_GET_SIZE(ignored); i++) {
        long sig = PyLong_AsLong(PyTuple_GET_ITEM(ignored, i));
        if (sig == -1 && PyErr_Occurred()) {
            return NULL;
        }
        if (sig <= 0 || sig >= NSIG || sig == SIGKILL || sig == SIGSTOP ||
            sigaddset(&ignored_set, (int)sig) != 0) {
            PyErr_Format(PyExc_ValueError, "cannot leave signal %ld ignored", sig);
            return NULL;
        }
    }
    if (cwd != Py_None && !PyBytes_Check(cwd)) {
        PyErr_SetString(PyExc_TypeError, "cwd must be bytes or None");
        return NULL;
    }
    if (PyList_GET_SIZE(argv_list) == 0) {
        PyErr_SetString(PyExc_ValueError, "argv must not be empty");
        return NULL;
    }
    /* Tuples of the lists' items: the child reads them with the GIL released. */
    PyObject *argv_items = PyList_AsTuple(argv_list);
    PyObject *envp_items = argv_items == NULL ? NULL : PyList_AsTuple(envp_list);
    char **argv = envp_items == NULL ? NULL : string_array(argv_items, "argv");
    char **envp = argv == NULL ? NULL : string_array(envp_items, "env");
    if (envp == NULL) {
        PyMem_Free(argv);
        Py_XDECREF(argv_items);
        Py_XDECREF(envp_items);
        return NULL;
    }
    struct child child = {
        .fds = {fds[0], fds[1], fds[2]},
        .cwd = cwd == Py_None ? NULL : PyBytes_AS_STRING(cwd),
        .path = PyBytes_AS_STRING(path),
        .argv = argv,
        .envp = envp,
        .ignored = ignored_set,
        .gated = gated,
    };
    long pid = start(&child, cgroup);
    int start_error = errno;
    PyMem_Free(argv);
    PyMem_Free(envp);
    Py_DECREF(argv_items);
    Py_DECREF(envp_items);
    if (pid < 0) {
        errno = start_error;
        return PyErr_SetFromErrno(PyExc_OSError);
    }
    if (child.step != 0) {
        return raise_step(child.step, child.error, cwd, path);
    }
    return PyLong_FromLong(pid);
}

static PyMethodDef methods[] = {
    {"spawn", spawn, METH_VARARGS,
     "spawn(path, argv, env, cwd, (stdin, stdout, stderr), cgroup_fd, gated=False, "
     "ignored=()) -> pid\n\n"
     "Start *path* with *argv* and *env* (lists of bytes) in a new session, inside the cgroup "
     "whose directory *cgroup_fd* is open on, with the three descriptors as its standard "
     "streams and the signals of *ignored* left ignored; raises OSError if it cannot start. "
     "*gated*: it reads \"go\\n\" from its stdin before executing (returning once it has), "
     "else exits with 125."},
    {NULL, NULL, 0, NULL},
};

static struct PyModuleDef clone_module = {
    .m_base = PyModuleDef_HEAD_INIT,
    .m_name = "_clone",
    .m_doc = "clone3(CLONE_INTO_CGROUP) for a run's leader.",
    .m_size = -1,
    .m_methods = methods,
};

PyMODINIT_FUNC PyInit__clone(void) { return PyModule_Create(&clone_module); }
