/* SPDX-License-Identifier: MIT */
/* Nothing to declare in userspace (tests/kdiff/). */
