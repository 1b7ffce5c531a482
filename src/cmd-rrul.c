/* SPDX-License-Identifier: MIT */
/* cmd-rrul.c - `debloat rrul HOST`: shorthand for `debloat test rrul HOST`. */
#include "base/cli.h"

int cmd_rrul(int argc, char *argv[])
{
	return cmd_test_named("rrul", "rrul", argc, argv);
}
