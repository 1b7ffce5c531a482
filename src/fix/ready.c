/* SPDX-License-Identifier: MIT */
#include <errno.h>
#include <limits.h>
#include <stdint.h>
#include <stdlib.h>
#include <unistd.h>

#include "base/cli.h"
#include "fix/ready.h"

int fix_ready_tell(void)
{
	static const char line[] = FIX_READY_WORD "\n";
	const char *v = getenv(FIX_READY_ENV);
	uint64_t fd;
	int ret = 1;

	if (!v || !cli_parse_uint(v, 3, INT_MAX, &fd))
		return 0;
	errno = 0;
	if (write((int)fd, line, sizeof(line) - 1) != (ssize_t)(sizeof(line) - 1))
		ret = errno ? -errno : -EIO;
	close((int)fd);
	return ret;
}
