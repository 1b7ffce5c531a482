/* SPDX-License-Identifier: MIT */
/* cmd-fix.c - placeholder while the command is written; replaced by its owner. */
#include <stdio.h>

#include "cli.h"

int cmd_fix(int argc, char *argv[])
{
	(void)argc;
	(void)argv;
	fprintf(stderr, "%s: fix: not built yet\n", PROG_NAME);
	return 1;
}
