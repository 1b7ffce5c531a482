/* SPDX-License-Identifier: MIT */
/* errno values (tests/kdiff/): the system's generic table. */
#include <asm-generic/errno.h>
