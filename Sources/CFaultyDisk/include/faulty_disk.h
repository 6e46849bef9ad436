#ifndef PAIRSIM_FAULTY_DISK_H
#define PAIRSIM_FAULTY_DISK_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

/// A node's disk in the simulator, for running the real storage (SQLite and the turn journal)
/// under the nemesis with storage faults (R: K8). Files under a disk's directory are real files in
/// a temporary directory; what the disk adds is what a process and a machine can lose:
///
/// - death: after a given number of further writes the next write is cut short (only its first
///   `cut` bytes reach the file) and every write, sync, truncation and deletion after it fails —
///   the process was killed in the middle of that write (a torn journal entry, a transaction whose
///   commit never reached the WAL);
/// - power loss: every write since its file's last sync is undone, except a prefix of each file's
///   (in the order they were made; files apart, as nothing orders writes to different files that
///   were never synced), and each file's first undone write may be torn at a 512-byte sector —
///   what a machine that lost power keeps of data it never synced. (`pairsim_disk_power_loss_scattered`
///   keeps or loses each write on its own instead, as a disk that reorders writes does.)
///
/// SQLite reaches the disk through a VFS that this registers as SQLite's default (delegating to
/// the one before it): a file under no disk's directory is opened by the old default VFS itself,
/// so it costs nothing after its open. The turn journal writes through `pairsim_disk_pwrite`.
/// Thread-safe: swarm workers and parallel tests open disks concurrently.

typedef struct pairsim_disk pairsim_disk;

/// Registers the VFS (once per process). 0 on success, else an SQLite error code.
int pairsim_disk_install(void);

/// A disk for the files under `directory` (an absolute path; a trailing '/' is added). NULL when
/// out of memory. `power_loss`: remember what each unsynced write overwrote, so that
/// `pairsim_disk_power_loss` can undo it (a read of the old bytes per write; without it, a power
/// loss undoes nothing).
pairsim_disk *pairsim_disk_create(const char *directory, int power_loss);
/// Forgets the disk (its files stay where they are).
void pairsim_disk_destroy(pairsim_disk *disk);

/// The process dies at the write after the next `writes` writes: that write reaches the file with
/// its first `cut` bytes only (fewer when it is shorter). Negative `writes`: disarmed.
void pairsim_disk_die_after(pairsim_disk *disk, long writes, long cut);
/// The process dies now: nothing more reaches the files.
void pairsim_disk_kill(pairsim_disk *disk);
/// True once the process died.
int pairsim_disk_is_dead(const pairsim_disk *disk);
/// A new process on the same disk: writes work again, nothing is armed.
void pairsim_disk_revive(pairsim_disk *disk);

/// The caller's clock (any unit), stamped on each change from now on.
void pairsim_disk_set_time(pairsim_disk *disk, int64_t now);
/// The kernel wrote back the changes stamped before `before` (as Linux writes back dirty pages
/// older than `dirty_expire_centisecs`); INT64_MAX: all of them.
void pairsim_disk_writeback_before(pairsim_disk *disk, int64_t before);
/// The machine lost power (the process is dead): undoes each file's unsynced writes but a prefix
/// of them, drawn from `random`, and may tear the first undone one. Returns the writes undone; -1 on an I/O
/// error of the undoing itself.
long pairsim_disk_power_loss(pairsim_disk *disk, uint64_t random);
/// A power loss as a disk that reorders writes leaves it: each write never synced survives or
/// not, drawn one by one, a lost one perhaps torn (its first sectors made it); where a later write
/// survived, it stays. (A file truncated since its last sync keeps all its writes.) Returns the
/// writes undone; -1 on an I/O error.
long pairsim_disk_power_loss_scattered(pairsim_disk *disk, uint64_t random);


/// `fdatasync` of a file the caller writes with `pairsim_disk_pwrite`: its writes so far survive a
/// power loss. 0, or -1 with errno EIO once the process is dead. (The real file is not synced: the
/// disk is simulated, and its files are thrown away.)
int pairsim_disk_sync(pairsim_disk *disk, const char *path);

/// `pwrite` through the disk's faults (for files that SQLite does not open). Returns the bytes
/// written, or -1 with errno EIO once the process is dead.
ssize_t pairsim_disk_pwrite(pairsim_disk *disk, const char *path, int fd, const void *bytes, size_t count, off_t offset);

#endif
