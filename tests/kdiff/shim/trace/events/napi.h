/* SPDX-License-Identifier: MIT */
/* The stall tracepoint does nothing in userspace (tests/kdiff/). */
#define trace_dql_stall_detected(...)                                                              \
	do {                                                                                       \
	} while (0)
