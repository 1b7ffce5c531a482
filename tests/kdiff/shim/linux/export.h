/* SPDX-License-Identifier: MIT */
/* Symbols are not exported in userspace (tests/kdiff/). */
#define EXPORT_SYMBOL(s)
