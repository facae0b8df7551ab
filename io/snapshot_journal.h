/* Crash-safe HDF5 writing: an HDF5 file driver that makes each H5Fflush an atomic
 * commit, so that a writer killed at any moment (SIGKILL, power cut, full disk) leaves
 * the file as it was at the last commit.
 *
 * Why: HDF5 1.10 updates its metadata (superblock, object headers, B-tree nodes,
 * heaps) in place, and H5Fflush writes them one by one. A process killed in the middle
 * of a flush leaves some of them new and some old, and the file no longer opens.
 * Measured on dempact's own output with an LD_PRELOAD shim that kills the writer at
 * its k-th write system call: 77 of 207 kill points left an unreadable file. Freed
 * space is also reused for new data before the next flush, overwriting blocks the
 * last flushed metadata still points to.
 *
 * How: the driver is sec2 (plain POSIX I/O, a byte-for-byte ordinary HDF5 file that
 * any HDF5 reader opens with its default driver) with one rule. Bytes that the last
 * commit may reference, everything below its end of allocation rounded up to 4 KiB
 * pages (the "protected" region), are never written outside a commit: writes there go
 * to in-memory copies of the pages (shadow pages), and reads see those copies. Writes
 * beyond it (new datasets, new metadata blocks: nearly all the data) go straight to the
 * file, where nothing committed points. A commit (journal_commit, after H5Fflush) then:
 *   1. extends the file to the end of allocation and fsyncs it (the new data is durable);
 *   2. writes every shadow page to FILE.journal with a checksum, fsyncs it and its folder;
 *   3. copies the shadow pages into the file, fsyncs it;
 *   4. deletes the journal; the protected region grows to the new end of allocation.
 * A crash before 3 leaves the file exactly at the previous commit (an incomplete
 * journal is discarded); a crash during 3 leaves a complete journal, and replaying it
 * (journal_recover, idempotent) completes the commit. Only step 3 can leave the file
 * itself unreadable until recovery: a few page writes per commit, microseconds; dempact
 * run --restart, dempact info and tools/dempact_h5.py recover first. Nothing is written
 * on close: closing after an error leaves the last commit in place.
 *
 * The journal names the file's device and inode, so a stale journal is never applied to
 * another file. The writer holds an open-file-description write lock (fcntl F_OFD_SETLK)
 * on the file: a second writer is refused, and recovery leaves a file that a live run is
 * writing alone (its journal is the run's). HDF5 readers use flock(), which does not
 * interact with it, so they open the file while it is written. Test hook: DEMPACT_TEST_CRASH_COMMIT=N makes the N-th commit that has
 * shadow pages kill the process (SIGKILL) after copying half of them into the file. */
#ifndef DEMPACT_SNAPSHOT_JOURNAL_H
#define DEMPACT_SNAPSHOT_JOURNAL_H

#include <hdf5.h>
#include <stddef.h>

/* A new file access property list using the driver (libver bounds and locking are the
 * caller's). Returns a negative id on failure. */
hid_t journal_fapl(void);

/* Makes the state after the last H5Fflush(file) durable and atomic (steps 1-4 above).
 * Returns 0, or -1 with a message naming the file and the system error. After a
 * failure the file stays at the previous commit (or is completed by recovery). */
int journal_commit(hid_t file, char *err, size_t err_len);

/* Moves the journal along after the HDF5 file was renamed to new_h5_path. */
int journal_rename(hid_t file, const char *new_h5_path);

/* After a failure: from now on nothing more reaches the disk (HDF5's writes, even on
 * close, are kept in memory and dropped), so that closing cannot fail or change the
 * last commit. Commits are refused. */
void journal_abandon(hid_t file);

/* errno of the driver's last failed system call on this file (0 if none). */
int journal_last_errno(hid_t file);

/* Replays or discards the journal left beside h5_path by a crashed writer, before the
 * file is opened. Returns 0 if there was none (or an incomplete one, now discarded), 1
 * if a complete one was replayed, -1 with a message if it could not be (for example it
 * belongs to another file, or the folder is read-only). */
int journal_recover(const char *h5_path, char *err, size_t err_len);

/* 1 if another process has h5_path open for writing through this driver (a dempact run
 * writing it), else 0. */
int journal_in_use(const char *h5_path);

/* The journal's path for an HDF5 file: malloc'd "PATH.journal". */
char *journal_path_for(const char *h5_path);

#endif
