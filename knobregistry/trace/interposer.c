/*
 * knobs trace, C level: an LD_PRELOAD interposer for getenv and secure_getenv.
 *
 * Every call from a native library (and from the program itself) is answered by
 * the real function, found with dlsym(RTLD_NEXT, ...), and counted in a file of
 * its own per process: $KNOBS_TRACE_DIR/c-<pid>-<n>.rec. The hot path allocates
 * nothing, and memory does not grow with the reads: a fixed open-addressing table
 * of SLOTS (name, caller) pairs, each keeping VALUES values (as hashes) with their
 * counts and one count for the reads of further values ("others"). The first read
 * of each kept value writes one record with a single writev(2) on an O_APPEND
 * descriptor, so a killed process still leaves every name it read; the counts are
 * written every FLUSH_EVERY reads and at exit. A read past the table's bounds (a
 * full table, a name over MAX_NAME bytes) is counted as unrecorded.
 *
 * Record:     R <pair:16 hex> <index> <state> <name bytes> <value bytes> <library bytes>:<data>\n
 * Counts:     C <pair:16 hex> <index> <more reads>\n
 * Others:     O <pair:16 hex> <reads>\n
 * Unrecorded: U <reads>\n
 * state: v (a value), u (unset), s (set, value withheld: a secret-looking name),
 * l (set, value over MAX_VALUE bytes: not written).
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

#define SLOTS 8192 /* (name, caller) pairs a process keeps; a power of two */
#define PROBES 64  /* slots looked at before a pair counts as unrecorded */
#define VALUES 8   /* values kept per pair */
#define MAX_NAME 1024
#define MAX_VALUE 32768
#define MAX_PATH 4096
#define FLUSH_EVERY 65536
#define DIR_VARIABLE "KNOBS_TRACE_DIR"
#define SECRETS_VARIABLE "KNOBS_TRACE_SECRETS"
#define PARTS_SIZE (2 * MAX_NAME + 4)

typedef char *(*getenv_fn)(const char *);

struct pair {
    uint64_t values[VALUES]; /* hash of (state, value); 0: empty */
    uint64_t counts[VALUES]; /* reads not yet written */
    uint64_t others;         /* reads of further values not yet written */
    int others_seen;
    int secret; /* 0: not known yet; 1: not a secret; 2: a secret */
};

static getenv_fn real_getenv;
static getenv_fn real_secure_getenv;
static char trace_dir[PATH_MAX];
/* "_A_B_" patterns, each ended by a NUL, then a NUL: room for settings.MOST patterns of
 * settings.MOST characters each. */
static char extra_secrets[16384];
static int out_fd = -1;
static unsigned int opened; /* files opened by this process, for the name */
static uint64_t keys[SLOTS]; /* hash of (name, caller); 0: empty */
static struct pair pairs[SLOTS];
static uint64_t unrecorded;
static int unrecorded_seen;
static uint64_t reads;
static int flushing;
static __thread int busy __attribute__((tls_model("initial-exec")));

/* The secret patterns: a name part that is one of WORDS, or ends with one of ENDINGS
 * (python_hook.py holds the same lists); the shell's PWD and OLDPWD are not secrets. */
static const char *const WORDS[] = {
    "PWD",  "PASS",       "PASSWD",      "PASSWORD", "PAT",    "TOKEN",   "SECRET",  "SECRETS", "KEY",
    "KEYS", "CREDENTIAL", "CREDENTIALS", "AUTH",     "COOKIE", "COOKIES", "PRIVATE", NULL};
static const char *const ENDINGS[] = {"TOKEN", "SECRET", "PASSWORD", "PASSWD", "KEY", NULL};

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

static int kind(char c) {
    if (c >= 'a' && c <= 'z') {
        return 'a';
    }
    if (c >= 'A' && c <= 'Z') {
        return 'A';
    }
    return c >= '0' && c <= '9' ? '0' : 0;
}

/* The parts of `text` (its first `length` bytes) in upper case, each between
 * underscores ("_MYSQL_PWD_"): runs of letters or of digits, split where lower case
 * turns upper. `out` holds 2 * length + 4 bytes. */
static void name_parts(const char *text, size_t length, char *out) {
    size_t n = 0, i;
    int previous = 0;
    out[n++] = '_';
    for (i = 0; i < length; i++) {
        int now = kind(text[i]);
        if (now == 0) {
            if (out[n - 1] != '_') {
                out[n++] = '_';
            }
        } else {
            int split = previous != 0 && ((previous == '0') != (now == '0') ||
                                          (previous == 'a' && now == 'A'));
            if (split && out[n - 1] != '_') {
                out[n++] = '_';
            }
            out[n++] = now == 'a' ? (char)(text[i] - 'a' + 'A') : text[i];
        }
        previous = now;
    }
    if (out[n - 1] != '_') {
        out[n++] = '_';
    }
    out[n] = '\0';
}

static int has_part(const char *parts, const char *word, int whole) {
    char pattern[64];
    size_t length = strlen(word), n = 0;
    if (length + 3 > sizeof pattern) {
        return 0;
    }
    if (whole) {
        pattern[n++] = '_';
    }
    memcpy(pattern + n, word, length);
    n += length;
    pattern[n++] = '_';
    pattern[n] = '\0';
    return strstr(parts, pattern) != NULL;
}

static int secret(const char *name, size_t length) {
    char parts[PARTS_SIZE];
    const char *extra;
    int i;
    name_parts(name, length, parts);
    if (strcmp(parts, "_PWD_") == 0 || strcmp(parts, "_OLDPWD_") == 0) {
        return 0;
    }
    for (i = 0; WORDS[i] != NULL; i++) {
        if (has_part(parts, WORDS[i], 1)) {
            return 1;
        }
    }
    for (i = 0; ENDINGS[i] != NULL; i++) {
        if (has_part(parts, ENDINGS[i], 0)) {
            return 1;
        }
    }
    for (extra = extra_secrets; *extra != '\0'; extra += strlen(extra) + 1) {
        if (strstr(parts, extra) != NULL) {
            return 1;
        }
    }
    return 0;
}

/* KNOBS_TRACE_SECRETS ("SALT,SIGNING_SEED") as name parts, each ended by a NUL. */
static void read_extra_secrets(const char *text) {
    size_t used = 0;
    while (text != NULL && *text != '\0') {
        const char *end = strchr(text, ',');
        size_t length = end != NULL ? (size_t)(end - text) : strlen(text);
        if (length > 0 && used + 2 * length + 5 < sizeof extra_secrets) {
            name_parts(text, length, extra_secrets + used);
            if (strcmp(extra_secrets + used, "_") != 0) {
                used += strlen(extra_secrets + used) + 1;
            }
        }
        text = end != NULL ? end + 1 : NULL;
    }
    extra_secrets[used] = '\0';
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
    memset(pairs, 0, sizeof pairs);
    unrecorded = 0;
    unrecorded_seen = 0;
    reads = 0;
    flushing = 0;
}

__attribute__((constructor)) static void start(void) {
    const char *dir;
    busy = 1;
    dir = scan_environ(DIR_VARIABLE);
    if (dir != NULL && strlen(dir) < sizeof trace_dir - 64) {
        strcpy(trace_dir, dir);
    }
    read_extra_secrets(scan_environ(SECRETS_VARIABLE));
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

static void write_all(const char *data, size_t length) {
    int fd = output();
    if (fd >= 0 && length > 0) {
        (void)!write(fd, data, length);
    }
}

/* FNV-1a over the first `limit` + 1 bytes of `text` at most; `*length` gets its
 * length, or `limit` + 1 when it is longer. */
static uint64_t fnv(uint64_t hash, const char *text, size_t limit, size_t *length) {
    size_t n = 0;
    for (; text[n] != '\0' && n <= limit; n++) {
        hash = (hash ^ (unsigned char)text[n]) * 1099511628211ULL;
    }
    *length = n;
    return (hash ^ 0xff) * 1099511628211ULL;
}

static void write_record(uint64_t key, int index, char state, const char *name,
                         size_t name_length, const char *value, size_t value_length,
                         const void *caller) {
    char header[128];
    struct iovec parts[5];
    Dl_info info;
    const char *library = "";
    size_t library_length;
    int n = 0, fd = output();
    if (fd < 0) {
        return;
    }
    if (caller != NULL && dladdr(caller, &info) != 0 && info.dli_fname != NULL) {
        library = info.dli_fname;
    }
    library_length = strlen(library);
    if (library_length > MAX_PATH) {
        library_length = 0; /* shown as the program */
    }
    header[n++] = 'R';
    header[n++] = ' ';
    put_hex(header + n, key, 16);
    n += 16;
    header[n++] = ' ';
    header[n++] = (char)('0' + index);
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
    parts[2].iov_base = (void *)(value_length > 0 ? value : "");
    parts[2].iov_len = value_length;
    parts[3].iov_base = (void *)library;
    parts[3].iov_len = library_length;
    parts[4].iov_base = (void *)"\n";
    parts[4].iov_len = 1;
    (void)!writev(fd, parts, 5);
}

/* One count line ("C <pair> <index> <n>", "O <pair> <n>", "U <n>") into `out`. */
static int count_line(char *out, char tag, uint64_t key, int index, uint64_t count) {
    int n = 0;
    out[n++] = tag;
    out[n++] = ' ';
    if (tag != 'U') {
        put_hex(out + n, key, 16);
        n += 16;
        out[n++] = ' ';
    }
    if (tag == 'C') {
        out[n++] = (char)('0' + index);
        out[n++] = ' ';
    }
    n += put_decimal(out + n, count);
    out[n++] = '\n';
    return n;
}

/* Write the counts gathered since the last flush; one thread at a time. */
static void flush(void) {
    char buffer[4096];
    size_t used = 0, slot;
    int i, expected = 0;
    uint64_t count;
    if (!__atomic_compare_exchange_n(&flushing, &expected, 1, 0, __ATOMIC_ACQUIRE,
                                     __ATOMIC_RELAXED)) {
        return;
    }
    for (slot = 0; slot < SLOTS; slot++) {
        uint64_t key = __atomic_load_n(&keys[slot], __ATOMIC_ACQUIRE);
        if (key == 0) {
            continue;
        }
        for (i = 0; i <= VALUES; i++) {
            count = __atomic_exchange_n(i < VALUES ? &pairs[slot].counts[i] : &pairs[slot].others,
                                        0, __ATOMIC_RELAXED);
            if (count == 0) {
                continue;
            }
            if (used + 64 > sizeof buffer) {
                write_all(buffer, used);
                used = 0;
            }
            used += (size_t)count_line(buffer + used, i < VALUES ? 'C' : 'O', key, i, count);
        }
    }
    count = __atomic_exchange_n(&unrecorded, 0, __ATOMIC_RELAXED);
    if (count != 0) {
        if (used + 64 > sizeof buffer) {
            write_all(buffer, used);
            used = 0;
        }
        used += (size_t)count_line(buffer + used, 'U', 0, 0, count);
    }
    write_all(buffer, used);
    __atomic_store_n(&flushing, 0, __ATOMIC_RELEASE);
}

/* Count a read that is not kept; the first one is written at once. */
static void count_unrecorded(void) {
    char line[32];
    int expected = 0;
    if (__atomic_compare_exchange_n(&unrecorded_seen, &expected, 1, 0, __ATOMIC_ACQ_REL,
                                    __ATOMIC_RELAXED)) {
        write_all(line, (size_t)count_line(line, 'U', 0, 0, 1));
    } else {
        __atomic_add_fetch(&unrecorded, 1, __ATOMIC_RELAXED);
    }
}

/* The slot of (name, caller), claimed when it is new; -1 past the table's bounds. */
static long find_slot(uint64_t key) {
    size_t slot = (size_t)(key & (SLOTS - 1)), probe;
    for (probe = 0; probe < PROBES; probe++, slot = (slot + 1) & (SLOTS - 1)) {
        uint64_t found = __atomic_load_n(&keys[slot], __ATOMIC_ACQUIRE);
        if (found == 0) {
            uint64_t empty = 0;
            if (__atomic_compare_exchange_n(&keys[slot], &empty, key, 0, __ATOMIC_ACQ_REL,
                                            __ATOMIC_ACQUIRE)) {
                return (long)slot;
            }
            found = empty;
        }
        if (found == key) {
            return (long)slot;
        }
    }
    return -1;
}

static void record(const char *name, const char *value, const void *caller) {
    struct pair *pair;
    size_t name_length, value_length = 0;
    uint64_t key, value_key;
    char state;
    long slot;
    int i, is_secret;
    key = fnv(14695981039346656037ULL, name, MAX_NAME, &name_length);
    if (name_length > MAX_NAME) {
        count_unrecorded();
        return;
    }
    key = (key ^ (uint64_t)(uintptr_t)caller) * 1099511628211ULL;
    key = key == 0 ? 1 : key; /* 0 marks an empty slot */
    slot = find_slot(key);
    if (slot < 0) {
        count_unrecorded();
        return;
    }
    pair = &pairs[slot];
    is_secret = __atomic_load_n(&pair->secret, __ATOMIC_ACQUIRE);
    if (is_secret == 0) {
        is_secret = secret(name, name_length) ? 2 : 1;
        __atomic_store_n(&pair->secret, is_secret, __ATOMIC_RELEASE);
    }
    if (value == NULL) {
        state = 'u';
        value_key = 'u';
    } else if (is_secret == 2) {
        state = 's';
        value_key = 's';
    } else {
        value_key = fnv(14695981039346656037ULL ^ 'v', value, MAX_VALUE, &value_length);
        state = value_length > MAX_VALUE ? 'l' : 'v';
        value_key = state == 'l' ? 'l' : value_key | ((uint64_t)1 << 63);
        value_length = state == 'l' ? 0 : value_length;
    }
    for (i = 0; i < VALUES; i++) {
        uint64_t found = __atomic_load_n(&pair->values[i], __ATOMIC_ACQUIRE);
        if (found == 0) {
            uint64_t empty = 0;
            if (__atomic_compare_exchange_n(&pair->values[i], &empty, value_key, 0,
                                            __ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE)) {
                write_record(key, i, state, name, name_length, value, value_length, caller);
                return;
            }
            found = empty;
        }
        if (found == value_key) {
            __atomic_add_fetch(&pair->counts[i], 1, __ATOMIC_RELAXED);
            return;
        }
    }
    i = 0;
    if (__atomic_compare_exchange_n(&pair->others_seen, &i, 1, 0, __ATOMIC_ACQ_REL,
                                    __ATOMIC_RELAXED)) {
        char line[48];
        write_all(line, (size_t)count_line(line, 'O', key, 0, 1));
    } else {
        __atomic_add_fetch(&pair->others, 1, __ATOMIC_RELAXED);
    }
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
        if (__atomic_add_fetch(&reads, 1, __ATOMIC_RELAXED) % FLUSH_EVERY == 0) {
            flush();
        }
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
    busy = 1;
    if (out_fd >= 0) {
        flush();
    }
    busy = 0;
}
