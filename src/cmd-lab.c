/* SPDX-License-Identifier: MIT */
/* cmd-lab.c - placeholder while the command is written; replaced by its owner. */
#include <stdio.h>

#include "cli.h"

int cmd_lab(int argc, char *argv[])
{
	(void)argc;
	(void)argv;
	fprintf(stderr, "%s: lab: not built yet\n", PROG_NAME);
	return 1;
}
