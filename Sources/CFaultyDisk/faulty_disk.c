// The simulator's faulty disk (faulty_disk.h): real files, with the writes a killed process or a
// machine without power loses. SQLite's own test harness does the same with its "crash" VFS
// (test6.c, which also tears sectors); this one is written for PairSim's two storage files.
#include "faulty_disk.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <pthread.h>
#include <sqlite3.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define SECTOR 512

/// One unsynced change of a file: a write (its range and what the range held before) or a
/// truncation (the bytes it cut off). Undoing puts `old` back at `offset` and the size back to
/// `old_size`.
typedef struct {
    char *path;
    off_t offset;
    size_t length;        // bytes written (0 for a truncation)
    unsigned char *old;   // what [offset, offset + old_length) held
    size_t old_length;
    off_t old_size;       // the file's size before
    int64_t stamp;        // the disk's time when it was made
} change;

struct pairsim_disk {
    char *directory;
    size_t directory_length;
    pthread_mutex_t lock;
    long countdown;  // writes before the dying one; negative: not armed
    long cut;
    int dead;
    int records;     // remembers unsynced changes (for a power loss)
    int64_t now;     // the caller's clock, stamped on changes
    change *changes;
    size_t count, capacity;
    pairsim_disk *next;
};

static pthread_mutex_t registry_lock = PTHREAD_MUTEX_INITIALIZER;
static pairsim_disk *registry = NULL;

static pairsim_disk *disk_for(const char *path) {
    if (path == NULL) return NULL;
    pthread_mutex_lock(&registry_lock);
    pairsim_disk *found = NULL;
    for (pairsim_disk *disk = registry; disk != NULL; disk = disk->next) {
        if (strncmp(path, disk->directory, disk->directory_length) == 0) { found = disk; break; }
    }
    pthread_mutex_unlock(&registry_lock);
    return found;
}

pairsim_disk *pairsim_disk_create(const char *given, int power_loss) {
    // The path SQLite opens is its full path, symbolic links resolved: match that.
    char resolved[PATH_MAX];
    const char *directory = realpath(given, resolved) != NULL ? resolved : given;
    pairsim_disk *disk = calloc(1, sizeof *disk);
    if (disk == NULL) return NULL;
    size_t length = strlen(directory);
    int slash = length > 0 && directory[length - 1] == '/';
    disk->directory = malloc(length + 2);
    if (disk->directory == NULL) { free(disk); return NULL; }
    memcpy(disk->directory, directory, length);
    if (!slash) disk->directory[length++] = '/';
    disk->directory[length] = 0;
    disk->directory_length = length;
    disk->countdown = -1;
    disk->records = power_loss;
    pthread_mutex_init(&disk->lock, NULL);
    pthread_mutex_lock(&registry_lock);
    disk->next = registry;
    registry = disk;
    pthread_mutex_unlock(&registry_lock);
    return disk;
}

/// Forgets the changes of `path` (NULL: every file) made before `before`: they survive now.
static void forget_changes_before(pairsim_disk *disk, const char *path, int64_t before) {
    size_t kept = 0;
    for (size_t i = 0; i < disk->count; i++) {
        change *c = &disk->changes[i];
        if ((path == NULL || strcmp(c->path, path) == 0) && c->stamp < before) {
            free(c->path);
            free(c->old);
        } else {
            disk->changes[kept++] = *c;
        }
    }
    disk->count = kept;
}

static void forget_changes(pairsim_disk *disk, const char *path) { forget_changes_before(disk, path, INT64_MAX); }

void pairsim_disk_destroy(pairsim_disk *disk) {
    if (disk == NULL) return;
    pthread_mutex_lock(&registry_lock);
    for (pairsim_disk **link = &registry; *link != NULL; link = &(*link)->next) {
        if (*link == disk) { *link = disk->next; break; }
    }
    pthread_mutex_unlock(&registry_lock);
    forget_changes(disk, NULL);
    free(disk->changes);
    free(disk->directory);
    pthread_mutex_destroy(&disk->lock);
    free(disk);
}

void pairsim_disk_die_after(pairsim_disk *disk, long writes, long cut) {
    pthread_mutex_lock(&disk->lock);
    disk->countdown = writes;
    disk->cut = cut < 0 ? 0 : cut;
    pthread_mutex_unlock(&disk->lock);
}

void pairsim_disk_kill(pairsim_disk *disk) {
    pthread_mutex_lock(&disk->lock);
    disk->dead = 1;
    disk->countdown = -1;
    pthread_mutex_unlock(&disk->lock);
}

int pairsim_disk_is_dead(const pairsim_disk *disk) {
    pthread_mutex_lock((pthread_mutex_t *)&disk->lock);
    int dead = disk->dead;
    pthread_mutex_unlock((pthread_mutex_t *)&disk->lock);
    return dead;
}

void pairsim_disk_revive(pairsim_disk *disk) {
    pthread_mutex_lock(&disk->lock);
    disk->dead = 0;
    disk->countdown = -1;
    pthread_mutex_unlock(&disk->lock);
}

void pairsim_disk_set_time(pairsim_disk *disk, int64_t now) {
    pthread_mutex_lock(&disk->lock);
    disk->now = now;
    pthread_mutex_unlock(&disk->lock);
}

void pairsim_disk_writeback_before(pairsim_disk *disk, int64_t before) {
    pthread_mutex_lock(&disk->lock);
    forget_changes_before(disk, NULL, before);
    pthread_mutex_unlock(&disk->lock);
}

/// Remembers a change (the disk's lock held). 0, or -1 when out of memory.
static int remember(pairsim_disk *disk, const char *path, off_t offset, size_t length, const unsigned char *old, size_t old_length,
                    off_t old_size) {
    if (disk->count == disk->capacity) {
        size_t capacity = disk->capacity ? disk->capacity * 2 : 64;
        change *grown = realloc(disk->changes, capacity * sizeof *grown);
        if (grown == NULL) return -1;
        disk->changes = grown;
        disk->capacity = capacity;
    }
    change *c = &disk->changes[disk->count];
    c->path = strdup(path);
    c->old = old_length ? malloc(old_length) : NULL;
    if (c->path == NULL || (old_length && c->old == NULL)) { free(c->path); free(c->old); return -1; }
    if (old_length) memcpy(c->old, old, old_length);
    c->offset = offset;
    c->length = length;
    c->old_length = old_length;
    c->old_size = old_size;
    c->stamp = disk->now;
    disk->count++;
    return 0;
}

/// How much of a write of `count` bytes may happen (the disk's lock held): `count`, the dying
/// write's cut, or -1 when the process is dead.
static long admit(pairsim_disk *disk, size_t count) {
    if (disk->dead) return -1;
    if (disk->countdown == 0) {
        disk->dead = 1;
        disk->countdown = -1;
        return disk->cut < (long)count ? disk->cut : (long)count;
    }
    if (disk->countdown > 0) disk->countdown--;
    return (long)count;
}

// MARK: Undoing at a power loss

static int restore_bytes(int fd, off_t offset, const unsigned char *bytes, size_t length) {
    size_t done = 0;
    while (done < length) {
        ssize_t n = pwrite(fd, bytes + done, length - done, offset + (off_t)done);
        if (n < 0) { if (errno == EINTR) continue; return -1; }
        done += (size_t)n;
    }
    return 0;
}

/// Undoes change `c` but its first `keep` bytes (the sectors that reached the platter).
static int undo(const change *c, size_t keep) {
    int fd = open(c->path, O_RDWR | O_CLOEXEC);
    if (fd < 0) return errno == ENOENT ? 0 : -1;  // deleted since: a deletion is not undone
    int result = 0;
    if (keep < c->old_length && restore_bytes(fd, c->offset + (off_t)keep, c->old + keep, c->old_length - keep) != 0) result = -1;
    off_t kept_end = c->offset + (off_t)(keep < c->length ? keep : c->length);
    off_t size = c->old_size > kept_end ? c->old_size : kept_end;
    struct stat st;
    if (result == 0 && fstat(fd, &st) == 0 && st.st_size != size && ftruncate(fd, size) != 0) result = -1;
    close(fd);
    return result;
}

/// A SplitMix64 step: the power loss's draws, from the caller's `random`.
static uint64_t next_random(uint64_t *state) {
    uint64_t z = (*state += 0x9E3779B97F4A7C15ULL);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
    return z ^ (z >> 31);
}

/// How much of a lost change made it before the power went: its first whole sectors, drawn.
static size_t torn_bytes(const change *c, uint64_t *random) {
    size_t sectors = (c->length + SECTOR - 1) / SECTOR;
    size_t keep = (size_t)(next_random(random) % (sectors + 1)) * SECTOR;
    return keep > c->length ? c->length : keep;
}

/// The end of a power loss (the disk's lock held, released here): nothing is unsynced any more,
/// and the process is dead.
static long power_lost(pairsim_disk *disk, int failed, long undone) {
    forget_changes(disk, NULL);
    disk->dead = 1;
    pthread_mutex_unlock(&disk->lock);
    return failed ? -1 : undone;
}

long pairsim_disk_power_loss(pairsim_disk *disk, uint64_t random) {
    pthread_mutex_lock(&disk->lock);
    size_t n = disk->count;
    // Each file keeps a prefix of its own unsynced changes, drawn apart from the other files':
    // nothing orders writes to different files that were never synced.
    size_t *position = calloc(n ? n : 1, sizeof *position);  // a change's index among its file's
    size_t *kept = calloc(n ? n : 1, sizeof *kept);           // per change: its file's kept prefix
    if (position == NULL || kept == NULL) { free(position); free(kept); pthread_mutex_unlock(&disk->lock); return -1; }
    for (size_t i = 0; i < n; i++) {
        if (kept[i] != 0) continue;  // its file was drawn already
        size_t total = 0;
        for (size_t j = i; j < n; j++) if (strcmp(disk->changes[j].path, disk->changes[i].path) == 0) position[j] = total++;
        size_t prefix = (size_t)(next_random(&random) % (total + 1));
        for (size_t j = i; j < n; j++) if (strcmp(disk->changes[j].path, disk->changes[i].path) == 0) kept[j] = prefix + 1;
    }
    long undone = 0;
    int failed = 0;
    for (size_t i = n; i > 0; i--) {
        const change *c = &disk->changes[i - 1];
        size_t prefix = kept[i - 1] - 1;
        if (position[i - 1] < prefix) continue;
        // The first change its file lost may be torn: some of its sectors made it.
        size_t keep = position[i - 1] == prefix && c->length ? torn_bytes(c, &random) : 0;
        if (undo(c, keep) != 0) failed = 1;
        undone++;
    }
    free(position);
    free(kept);
    return power_lost(disk, failed, undone);
}

typedef struct { off_t from, to; } interval;

/// Puts back what `c` overwrote at [from, to), except where a later write that survived lies.
static int restore_except(int fd, const change *c, off_t from, off_t to, const interval *kept, size_t count) {
    off_t at = from;
    while (at < to) {
        off_t next = to;
        int covered = 0;
        for (size_t k = 0; k < count; k++) {
            if (kept[k].from <= at && at < kept[k].to) { covered = 1; next = kept[k].to < to ? kept[k].to : to; break; }
            if (kept[k].from > at && kept[k].from < next) next = kept[k].from;
        }
        if (!covered && restore_bytes(fd, at, c->old + (at - c->offset), (size_t)(next - at)) != 0) return -1;
        at = next;
    }
    return 0;
}

long pairsim_disk_power_loss_scattered(pairsim_disk *disk, uint64_t random) {
    pthread_mutex_lock(&disk->lock);
    size_t n = disk->count;
    unsigned char *lost = calloc(n ? n : 1, 1);
    size_t *keep = calloc(n ? n : 1, sizeof *keep);         // bytes of a lost change that made it (torn)
    interval *kept = calloc(n ? n : 1, sizeof *kept);
    if (lost == NULL || keep == NULL || kept == NULL) { free(lost); free(keep); free(kept); pthread_mutex_unlock(&disk->lock); return -1; }
    for (size_t i = 0; i < n; i++) {
        const change *c = &disk->changes[i];
        int truncated = 0;  // a file truncated since its last sync keeps all its changes (not modelled)
        for (size_t j = 0; j < n; j++) if (disk->changes[j].length == 0 && strcmp(disk->changes[j].path, c->path) == 0) truncated = 1;
        lost[i] = !truncated && c->length > 0 && (next_random(&random) & 1);
        if (lost[i]) keep[i] = torn_bytes(c, &random);
    }
    long undone = 0;
    int failed = 0;
    // Newest first: a lost change is undone except under the changes after it that made it.
    for (size_t i = n; i > 0 && !failed; i--) {
        const change *c = &disk->changes[i - 1];
        if (!lost[i - 1]) continue;
        size_t count = 0;
        for (size_t j = i; j < n; j++) {
            const change *later = &disk->changes[j];
            if (strcmp(later->path, c->path) != 0 || later->length == 0) continue;
            size_t made = lost[j] ? keep[j] : later->length;
            if (made) kept[count++] = (interval){later->offset, later->offset + (off_t)made};
        }
        if (keep[i - 1]) kept[count++] = (interval){c->offset, c->offset + (off_t)keep[i - 1]};
        int fd = open(c->path, O_RDWR | O_CLOEXEC);
        if (fd < 0) { if (errno != ENOENT) failed = 1; continue; }
        if (restore_except(fd, c, c->offset, c->offset + (off_t)c->old_length, kept, count) != 0) failed = 1;
        close(fd);
        undone++;
    }
    // Each file ends at its size before the changes, or past the furthest byte that made it.
    for (size_t i = 0; i < n && !failed; i++) {
        const change *first = &disk->changes[i];
        int seen = 0;
        for (size_t j = 0; j < i; j++) if (strcmp(disk->changes[j].path, first->path) == 0) seen = 1;
        if (seen) continue;
        off_t size = first->old_size, largest = first->old_size;
        int truncated = 0;
        for (size_t j = i; j < n; j++) {
            const change *c = &disk->changes[j];
            if (strcmp(c->path, first->path) != 0) continue;
            if (c->length == 0) truncated = 1;
            off_t end = c->offset + (off_t)(lost[j] ? keep[j] : c->length);
            if (end > size) size = end;
            if (c->offset + (off_t)c->length > largest) largest = c->offset + (off_t)c->length;
        }
        if (truncated || size == largest) continue;
        int fd = open(first->path, O_RDWR | O_CLOEXEC);
        if (fd < 0) { if (errno != ENOENT) failed = 1; continue; }
        struct stat st;
        if (fstat(fd, &st) == 0 && st.st_size > size && ftruncate(fd, size) != 0) failed = 1;
        close(fd);
    }
    free(lost);
    free(keep);
    free(kept);
    return power_lost(disk, failed, undone);
}

// MARK: The turn journal's writes

ssize_t pairsim_disk_pwrite(pairsim_disk *disk, const char *path, int fd, const void *bytes, size_t count, off_t offset) {
    struct stat st = {0};
    if (disk->records && fstat(fd, &st) != 0) return -1;
    size_t old_length = disk->records && offset < st.st_size ? (size_t)(st.st_size - offset < (off_t)count ? st.st_size - offset : (off_t)count) : 0;
    unsigned char *old = old_length ? malloc(old_length) : NULL;
    if (old_length && (old == NULL || pread(fd, old, old_length, offset) != (ssize_t)old_length)) { free(old); return -1; }
    pthread_mutex_lock(&disk->lock);
    long allowed = admit(disk, count);
    ssize_t written = -1;
    if (allowed >= 0) {
        written = allowed ? pwrite(fd, bytes, (size_t)allowed, offset) : 0;
        if (written > 0 && disk->records
            && remember(disk, path, offset, (size_t)written, old, old_length < (size_t)written ? old_length : (size_t)written, st.st_size) != 0) {
            written = -1;
        }
    }
    int died = disk->dead;
    pthread_mutex_unlock(&disk->lock);
    free(old);
    if (died || written < 0) { errno = EIO; return -1; }
    return written;
}

int pairsim_disk_sync(pairsim_disk *disk, const char *path) {
    pthread_mutex_lock(&disk->lock);
    int dead = disk->dead;
    if (!dead) forget_changes(disk, path);
    pthread_mutex_unlock(&disk->lock);
    if (dead) { errno = EIO; return -1; }
    return 0;
}

// MARK: The VFS

typedef struct {
    sqlite3_file base;
    pairsim_disk *disk;
    char *path;
    sqlite3_file *real;
} faulty_file;

static sqlite3_vfs faulty_vfs;
static sqlite3_vfs *base_vfs;

static int f_close(sqlite3_file *file) {
    faulty_file *f = (faulty_file *)file;
    int rc = f->real->pMethods ? f->real->pMethods->xClose(f->real) : SQLITE_OK;
    free(f->path);
    return rc;
}

static int f_read(sqlite3_file *file, void *buffer, int amount, sqlite3_int64 offset) {
    faulty_file *f = (faulty_file *)file;
    return f->real->pMethods->xRead(f->real, buffer, amount, offset);
}

static int f_write(sqlite3_file *file, const void *buffer, int amount, sqlite3_int64 offset) {
    faulty_file *f = (faulty_file *)file;
    sqlite3_int64 size = 0;
    int rc = f->disk->records ? f->real->pMethods->xFileSize(f->real, &size) : SQLITE_OK;
    if (rc != SQLITE_OK) return rc;
    size_t old_length = f->disk->records && offset < size ? (size_t)(size - offset < amount ? size - offset : amount) : 0;
    unsigned char *old = old_length ? malloc(old_length) : NULL;
    if (old_length && old == NULL) return SQLITE_NOMEM;
    if (old_length && (rc = f->real->pMethods->xRead(f->real, old, (int)old_length, offset)) != SQLITE_OK) { free(old); return rc; }
    pthread_mutex_lock(&f->disk->lock);
    long allowed = admit(f->disk, (size_t)amount);
    if (allowed > 0) {
        rc = f->real->pMethods->xWrite(f->real, buffer, (int)allowed, offset);
        if (rc == SQLITE_OK && f->disk->records
            && remember(f->disk, f->path, offset, (size_t)allowed, old, old_length < (size_t)allowed ? old_length : (size_t)allowed, size) != 0) {
            rc = SQLITE_NOMEM;
        }
    }
    int died = f->disk->dead;
    pthread_mutex_unlock(&f->disk->lock);
    free(old);
    return died ? SQLITE_IOERR_WRITE : rc;
}

static int f_truncate(sqlite3_file *file, sqlite3_int64 size) {
    faulty_file *f = (faulty_file *)file;
    sqlite3_int64 old_size = 0;
    int rc = f->disk->records ? f->real->pMethods->xFileSize(f->real, &old_size) : SQLITE_OK;
    if (rc != SQLITE_OK) return rc;
    size_t cut = f->disk->records && old_size > size ? (size_t)(old_size - size) : 0;
    unsigned char *old = cut ? malloc(cut) : NULL;
    if (cut && old == NULL) return SQLITE_NOMEM;
    if (cut && (rc = f->real->pMethods->xRead(f->real, old, (int)cut, size)) != SQLITE_OK) { free(old); return rc; }
    pthread_mutex_lock(&f->disk->lock);
    if (f->disk->dead) {
        rc = SQLITE_IOERR_TRUNCATE;
    } else {
        rc = f->real->pMethods->xTruncate(f->real, size);
        if (rc == SQLITE_OK && f->disk->records && remember(f->disk, f->path, size, 0, old, cut, old_size) != 0) rc = SQLITE_NOMEM;
    }
    pthread_mutex_unlock(&f->disk->lock);
    free(old);
    return rc;
}

/// A sync in the disk's model: the file's changes so far survive a power loss from now on. The real
/// file is not synced, as the journal's `pairsim_disk_sync` never syncs it: the files go with the
/// run, and a real fdatasync only made the simulator wait for the device (105 of them in a
/// week-long real-storage seed, `strace -c`).
static int f_sync(sqlite3_file *file, int flags) {
    faulty_file *f = (faulty_file *)file;
    (void)flags;
    pthread_mutex_lock(&f->disk->lock);
    int rc = f->disk->dead ? SQLITE_IOERR_FSYNC : SQLITE_OK;
    if (rc == SQLITE_OK) forget_changes(f->disk, f->path);
    pthread_mutex_unlock(&f->disk->lock);
    return rc;
}

static int f_file_size(sqlite3_file *file, sqlite3_int64 *size) {
    faulty_file *f = (faulty_file *)file;
    return f->real->pMethods->xFileSize(f->real, size);
}
static int f_lock(sqlite3_file *file, int level) { faulty_file *f = (faulty_file *)file; return f->real->pMethods->xLock(f->real, level); }
static int f_unlock(sqlite3_file *file, int level) { faulty_file *f = (faulty_file *)file; return f->real->pMethods->xUnlock(f->real, level); }
static int f_check_reserved(sqlite3_file *file, int *out) {
    faulty_file *f = (faulty_file *)file;
    return f->real->pMethods->xCheckReservedLock(f->real, out);
}
static int f_file_control(sqlite3_file *file, int op, void *arg) {
    faulty_file *f = (faulty_file *)file;
    return f->real->pMethods->xFileControl(f->real, op, arg);
}
static int f_sector_size(sqlite3_file *file) { faulty_file *f = (faulty_file *)file; return f->real->pMethods->xSectorSize(f->real); }
static int f_device_characteristics(sqlite3_file *file) {
    faulty_file *f = (faulty_file *)file;
    return f->real->pMethods->xDeviceCharacteristics(f->real);
}
static int f_shm_map(sqlite3_file *file, int region, int size, int extend, void volatile **out) {
    faulty_file *f = (faulty_file *)file;
    return f->real->pMethods->xShmMap(f->real, region, size, extend, out);
}
static int f_shm_lock(sqlite3_file *file, int offset, int n, int flags) {
    faulty_file *f = (faulty_file *)file;
    return f->real->pMethods->xShmLock(f->real, offset, n, flags);
}
static void f_shm_barrier(sqlite3_file *file) { faulty_file *f = (faulty_file *)file; f->real->pMethods->xShmBarrier(f->real); }
static int f_shm_unmap(sqlite3_file *file, int delete_flag) {
    faulty_file *f = (faulty_file *)file;
    return f->real->pMethods->xShmUnmap(f->real, delete_flag);
}
// No memory-mapped reads: every page comes through xRead (SQLite falls back when xFetch gives none).
static int f_fetch(sqlite3_file *file, sqlite3_int64 offset, int amount, void **out) {
    (void)file; (void)offset; (void)amount;
    *out = NULL;
    return SQLITE_OK;
}
static int f_unfetch(sqlite3_file *file, sqlite3_int64 offset, void *p) { (void)file; (void)offset; (void)p; return SQLITE_OK; }

static const sqlite3_io_methods faulty_methods = {
    3, f_close, f_read, f_write, f_truncate, f_sync, f_file_size, f_lock, f_unlock, f_check_reserved, f_file_control,
    f_sector_size, f_device_characteristics, f_shm_map, f_shm_lock, f_shm_barrier, f_shm_unmap, f_fetch, f_unfetch,
};

static int f_open(sqlite3_vfs *vfs, const char *name, sqlite3_file *file, int flags, int *out_flags) {
    (void)vfs;
    pairsim_disk *disk = disk_for(name);
    // Not a simulated node's file: the old default VFS opens it in place (its methods, no cost).
    if (disk == NULL) return base_vfs->xOpen(base_vfs, name, file, flags, out_flags);
    faulty_file *f = (faulty_file *)file;
    memset(f, 0, sizeof *f);
    f->real = (sqlite3_file *)(f + 1);
    f->disk = disk;
    f->path = strdup(name);
    if (f->path == NULL) return SQLITE_NOMEM;
    int rc = base_vfs->xOpen(base_vfs, name, f->real, flags, out_flags);
    if (rc != SQLITE_OK) {
        free(f->path);
        f->path = NULL;
        file->pMethods = NULL;
        return rc;
    }
    file->pMethods = &faulty_methods;
    return SQLITE_OK;
}

static int f_delete(sqlite3_vfs *vfs, const char *name, int sync_dir) {
    (void)vfs;
    pairsim_disk *disk = disk_for(name);
    if (disk == NULL) return base_vfs->xDelete(base_vfs, name, sync_dir);
    pthread_mutex_lock(&disk->lock);
    int rc = disk->dead ? SQLITE_IOERR_DELETE : base_vfs->xDelete(base_vfs, name, sync_dir);
    if (rc == SQLITE_OK) forget_changes(disk, name);
    pthread_mutex_unlock(&disk->lock);
    return rc;
}

static int f_access(sqlite3_vfs *vfs, const char *name, int flags, int *out) { (void)vfs; return base_vfs->xAccess(base_vfs, name, flags, out); }
static int f_full_pathname(sqlite3_vfs *vfs, const char *name, int size, char *out) {
    (void)vfs;
    return base_vfs->xFullPathname(base_vfs, name, size, out);
}

static pthread_once_t installed = PTHREAD_ONCE_INIT;
static int install_result = SQLITE_OK;

static void install(void) {
    install_result = sqlite3_initialize();
    if (install_result != SQLITE_OK) return;
    base_vfs = sqlite3_vfs_find(NULL);
    if (base_vfs == NULL) { install_result = SQLITE_ERROR; return; }
    faulty_vfs = *base_vfs;
    faulty_vfs.pNext = NULL;
    faulty_vfs.zName = "pairsim-faulty";
    faulty_vfs.szOsFile = (int)sizeof(faulty_file) + base_vfs->szOsFile;
    faulty_vfs.xOpen = f_open;
    faulty_vfs.xDelete = f_delete;
    faulty_vfs.xAccess = f_access;
    faulty_vfs.xFullPathname = f_full_pathname;
    install_result = sqlite3_vfs_register(&faulty_vfs, 1);
}

int pairsim_disk_install(void) {
    pthread_once(&installed, install);
    return install_result;
}
