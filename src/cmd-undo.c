/* SPDX-License-Identifier: MIT */
/* cmd-undo.c - placeholder while the command is written; replaced by its owner. */
#include <stdio.h>

#include "cli.h"

int cmd_undo(int argc, char *argv[])
{
	(void)argc;
	(void)argv;
	fprintf(stderr, "%s: undo: not built yet\n", PROG_NAME);
	return 1;
}
