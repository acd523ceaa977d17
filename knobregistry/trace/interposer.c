/*
 * knobs trace, C level: an LD_PRELOAD interposer for getenv and secure_getenv.
 *
 * Every call from a native library (and from the program itself) is answered by
 * the real function, found with dlsym(RTLD_NEXT, ...), and recorded in a file of
 * its own per process: $KNOBS_TRACE_DIR/c-<pid>-<n>.rec. The hot path allocates
 * nothing: a fixed open-addressing table, keyed by a hash of (name, value, caller),
 * counts repeated reads with atomic adds; the first read of a key writes one record
 * with a single writev(2) on an O_APPEND descriptor, so a killed process still
 * leaves every name it read. The destructor adds the counts of repeated reads.
 *
 * Record:  R <key:16 hex> <state> <name bytes> <value bytes> <library bytes>:<data>\n
 * Counts:  C <key:16 hex> <extra reads>\n
 * state: v (a value), u (unset), s (set, value withheld: a secret-looking name).
 *
 * A call made while this library is itself inside a call (dlsym or dladdr asking
 * for the environment, a malloc that reads MALLOC_CONF) is answered by a plain scan
 * of environ and not recorded, so nothing recurses. After fork the child starts an
 * empty table and a file of its own.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <fcntl.h>
#include <limits.h>
#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/types.h>
#include <sys/uio.h>
#include <unistd.h>

extern char **environ;

#define SLOTS 4096 /* a power of two */
#define DIR_VARIABLE "KNOBS_TRACE_DIR"

typedef char *(*getenv_fn)(const char *);

static getenv_fn real_getenv;
static getenv_fn real_secure_getenv;
static char trace_dir[PATH_MAX];
static int out_fd = -1;
static unsigned int opened; /* files opened by this process, for the name */
static uint64_t keys[SLOTS];
static uint64_t counts[SLOTS];
static __thread int busy __attribute__((tls_model("initial-exec")));

/* getenv without libc: for calls made while this library is busy. */
static char *scan_environ(const char *name) {
    size_t length;
    char **entry;
    if (name == NULL || environ == NULL) {
        return NULL;
    }
    length = strlen(name);
    for (entry = environ; *entry != NULL; entry++) {
        if (strncmp(*entry, name, length) == 0 && (*entry)[length] == '=') {
            return *entry + length + 1;
        }
    }
    return NULL;
}

static void resolve(void) {
    if (real_getenv == NULL) {
        real_getenv = (getenv_fn)dlsym(RTLD_NEXT, "getenv");
    }
    if (real_secure_getenv == NULL) {
        real_secure_getenv = (getenv_fn)dlsym(RTLD_NEXT, "secure_getenv");
    }
}

static void reset_after_fork(void) {
    /* The child runs alone here: it keeps nothing of the parent's table or file. */
    if (out_fd >= 0) {
        close(out_fd);
    }
    out_fd = -1;
    opened = 0;
    memset(keys, 0, sizeof keys);
    memset(counts, 0, sizeof counts);
}

__attribute__((constructor)) static void start(void) {
    const char *dir;
    busy = 1;
    dir = scan_environ(DIR_VARIABLE);
    if (dir != NULL && strlen(dir) < sizeof trace_dir - 64) {
        strcpy(trace_dir, dir);
    }
    resolve();
    pthread_atfork(NULL, NULL, reset_after_fork);
    busy = 0;
}

static void put_hex(char *out, uint64_t value, int digits) {
    static const char hex[] = "0123456789abcdef";
    int i;
    for (i = digits - 1; i >= 0; i--) {
        out[i] = hex[value & 15];
        value >>= 4;
    }
}

static int put_decimal(char *out, uint64_t value) {
    char reversed[24];
    int n = 0, i;
    do {
        reversed[n++] = (char)('0' + value % 10);
        value /= 10;
    } while (value != 0);
    for (i = 0; i < n; i++) {
        out[i] = reversed[n - 1 - i];
    }
    return n;
}

/* The descriptor of this process's record file, opened on first use. */
static int output(void) {
    char path[PATH_MAX];
    size_t length;
    int fd, expected = -1;
    if (out_fd >= 0 || trace_dir[0] == '\0') {
        return out_fd;
    }
    length = strlen(trace_dir);
    memcpy(path, trace_dir, length);
    memcpy(path + length, "/c-", 3);
    length += 3;
    length += (size_t)put_decimal(path + length, (uint64_t)getpid());
    path[length++] = '-';
    length += (size_t)put_decimal(path + length, __atomic_add_fetch(&opened, 1, __ATOMIC_SEQ_CST));
    memcpy(path + length, ".rec", 5);
    fd = open(path, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0600);
    if (fd < 0) {
        return -1;
    }
    if (!__atomic_compare_exchange_n(&out_fd, &expected, fd, 0, __ATOMIC_SEQ_CST,
                                     __ATOMIC_SEQ_CST)) {
        close(fd); /* another thread opened it first */
    }
    return out_fd;
}

static uint64_t fnv(uint64_t hash, const char *text) {
    if (text == NULL) {
        return hash * 1099511628211ULL;
    }
    for (; *text != '\0'; text++) {
        hash = (hash ^ (unsigned char)*text) * 1099511628211ULL;
    }
    return (hash ^ 0xff) * 1099511628211ULL;
}

static int contains_word(const char *name, const char *word) {
    size_t n = strlen(word), i;
    for (; *name != '\0'; name++) {
        for (i = 0; i < n; i++) {
            char c = name[i];
            if (c >= 'a' && c <= 'z') {
                c = (char)(c - 'a' + 'A');
            }
            if (c != word[i]) {
                break;
            }
        }
        if (i == n) {
            return 1;
        }
    }
    return 0;
}

/* The secret patterns *TOKEN*, *KEY*, *SECRET*, *PASSWORD* (any case). */
static int secret(const char *name) {
    return contains_word(name, "TOKEN") || contains_word(name, "KEY") ||
           contains_word(name, "SECRET") || contains_word(name, "PASSWORD");
}

static void write_record(uint64_t key, char state, const char *name, const char *value,
                         const void *caller) {
    char header[128];
    struct iovec parts[5];
    Dl_info info;
    const char *library = "";
    size_t name_length = strlen(name);
    size_t value_length = state == 'v' ? strlen(value) : 0;
    size_t library_length;
    int n = 0, fd = output();
    if (fd < 0) {
        return;
    }
    if (caller != NULL && dladdr(caller, &info) != 0 && info.dli_fname != NULL) {
        library = info.dli_fname;
    }
    library_length = strlen(library);
    header[n++] = 'R';
    header[n++] = ' ';
    put_hex(header + n, key, 16);
    n += 16;
    header[n++] = ' ';
    header[n++] = state;
    header[n++] = ' ';
    n += put_decimal(header + n, name_length);
    header[n++] = ' ';
    n += put_decimal(header + n, value_length);
    header[n++] = ' ';
    n += put_decimal(header + n, library_length);
    header[n++] = ':';
    parts[0].iov_base = header;
    parts[0].iov_len = (size_t)n;
    parts[1].iov_base = (void *)name;
    parts[1].iov_len = name_length;
    parts[2].iov_base = (void *)(state == 'v' ? value : "");
    parts[2].iov_len = value_length;
    parts[3].iov_base = (void *)library;
    parts[3].iov_len = library_length;
    parts[4].iov_base = (void *)"\n";
    parts[4].iov_len = 1;
    (void)!writev(fd, parts, 5);
}

static void record(const char *name, const char *value, const void *caller) {
    char state = value == NULL ? 'u' : (secret(name) ? 's' : 'v');
    uint64_t key = fnv(fnv(14695981039346656037ULL, name), state == 'v' ? value : NULL);
    size_t slot, probe;
    key = (key ^ (uint64_t)(unsigned char)state) * 1099511628211ULL;
    key = (key ^ (uint64_t)(uintptr_t)caller) * 1099511628211ULL;
    key = key == 0 ? 1 : key; /* 0 marks an empty slot */
    slot = (size_t)(key & (SLOTS - 1));
    for (probe = 0; probe < SLOTS; probe++, slot = (slot + 1) & (SLOTS - 1)) {
        uint64_t found = __atomic_load_n(&keys[slot], __ATOMIC_ACQUIRE);
        if (found == key) {
            __atomic_add_fetch(&counts[slot], 1, __ATOMIC_RELAXED);
            return;
        }
        if (found == 0) {
            uint64_t empty = 0;
            if (__atomic_compare_exchange_n(&keys[slot], &empty, key, 0, __ATOMIC_ACQ_REL,
                                            __ATOMIC_ACQUIRE)) {
                write_record(key, state, name, value, caller);
                return;
            }
            if (empty == key) {
                __atomic_add_fetch(&counts[slot], 1, __ATOMIC_RELAXED);
                return;
            }
        }
    }
    write_record(key, state, name, value, caller); /* the table is full: one record per read */
}

static char *traced(getenv_fn *real, const char *name, const void *caller) {
    char *value;
    if (busy) {
        return scan_environ(name);
    }
    busy = 1;
    if (*real == NULL) {
        resolve();
    }
    value = *real != NULL ? (*real)(name) : scan_environ(name);
    if (name != NULL && trace_dir[0] != '\0') {
        record(name, value, caller);
    }
    busy = 0;
    return value;
}

char *getenv(const char *name) {
    return traced(&real_getenv, name, __builtin_return_address(0));
}

char *secure_getenv(const char *name) {
    return traced(&real_secure_getenv, name, __builtin_return_address(0));
}

__attribute__((destructor)) static void finish(void) {
    char line[48];
    size_t slot;
    int fd;
    busy = 1;
    fd = out_fd;
    if (fd >= 0) {
        for (slot = 0; slot < SLOTS; slot++) {
            uint64_t extra = __atomic_load_n(&counts[slot], __ATOMIC_RELAXED);
            int n = 0;
            if (extra == 0) {
                continue;
            }
            line[n++] = 'C';
            line[n++] = ' ';
            put_hex(line + n, keys[slot], 16);
            n += 16;
            line[n++] = ' ';
            n += put_decimal(line + n, extra);
            line[n++] = '\n';
            (void)!write(fd, line, (size_t)n);
        }
    }
    busy = 0;
}
