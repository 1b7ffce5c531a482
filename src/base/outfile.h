/* SPDX-License-Identifier: MIT */
/*
 * outfile.h - the one way every command writes an output file (-o, --flent, ...).
 *
 * outfile_open() gives a stream to write to; outfile_close() finishes it:
 *   "-"                 standard output (flushed, not closed);
 *   a regular file or a path that does not exist yet: written to a temporary file
 *                       beside it, fsynced, made 0644 and renamed over it, so a failure
 *                       never leaves a half-written file;
 *   anything else       (a FIFO, a character or block device, a symlink, whatever it
 *                       points at) is written in place and left what it is: renaming
 *                       over /dev/full or a FIFO would replace the node with a file.
 * outfile_close(o, failed) with failed != 0 discards the temporary file. Both return
 * 0 or -errno; on failure of outfile_open() nothing is left behind.
 */
#ifndef DEBLOAT_OUTFILE_H
#define DEBLOAT_OUTFILE_H

#include <stddef.h>
#include <stdio.h>

struct outfile {
	FILE *f;   /* write here */
	char *tmp; /* the temporary file to rename over path, or NULL when in place */
	const char *path;
	int is_stdout;
};

int outfile_open(struct outfile *o, const char *path);
int outfile_close(struct outfile *o, int failed);
/* outfile_open + one buffer + outfile_close. */
int outfile_write(const char *path, const void *buf, size_t len);

#endif
