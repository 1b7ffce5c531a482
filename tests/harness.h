/* SPDX-License-Identifier: MIT */
/*
 * harness.h - the in-tree test harness: a page of macros.
 *
 *   TEST(dql_grows_on_starvation) { CHECK_EQ(dql.limit, 1514); }
 *
 * Each TEST registers itself; the harness's main() runs them in file order (or
 * only those named on the command line), prints one line per test, and ends with
 * "N passed, N failed" (", N skipped" when some were). CHECK* records a failure,
 * printing the expression, its values, file and line, and goes on; REQUIRE* also
 * returns from the test. SKIP("why") ends a test as skipped (no root, no netns).
 * Exit status: 1 if any test failed, 77 if every test skipped, else 0.
 */
#ifndef DEBLOAT_TESTS_HARNESS_H
#define DEBLOAT_TESTS_HARNESS_H

#include <stdbool.h>
#include <stdint.h>

void harness_register(const char *name, void (*fn)(void));
void harness_fail(const char *file, int line, const char *expr, const char *detail);
void harness_skip(const char *why);
bool harness_check_eq(const char *file, int line, const char *a_expr, const char *b_expr,
		      long long a, long long b);
bool harness_check_str(const char *file, int line, const char *a_expr, const char *b_expr,
		       const char *a, const char *b);

#define TEST(name)                                                                                 \
	static void test_##name(void);                                                             \
	__attribute__((constructor)) static void register_##name(void)                             \
	{                                                                                          \
		harness_register(#name, test_##name);                                              \
	}                                                                                          \
	static void test_##name(void)

#define CHECK(expr)	((expr) ? true : (harness_fail(__FILE__, __LINE__, #expr, NULL), false))
#define CHECK_EQ(a, b)	harness_check_eq(__FILE__, __LINE__, #a, #b, (long long)(a), (long long)(b))
#define CHECK_STR(a, b) harness_check_str(__FILE__, __LINE__, #a, #b, (a), (b))

#define REQUIRE(expr)                                                                              \
	do {                                                                                       \
		if (!CHECK(expr))                                                                  \
			return;                                                                    \
	} while (0)
#define REQUIRE_EQ(a, b)                                                                           \
	do {                                                                                       \
		if (!CHECK_EQ(a, b))                                                               \
			return;                                                                    \
	} while (0)

/*
 * A directory of the source tree (e.g. "tests/fixtures/netlink"): relative to the
 * working directory when it is there (tests/run.sh runs from the top), else found
 * up from this executable (build/tests/ runs from anywhere). NULL when neither.
 * The result lives in a static buffer until the next call.
 */
const char *harness_source_dir(const char *rel);

/*
 * got against the file name in the source tree's directory dir (harness_source_dir), byte
 * for byte; a failure names the file and its first line that differs. With
 * HARNESS_WRITE_GOLDEN=1 in the environment the file is written instead (after a
 * deliberate change: read its diff before committing it).
 */
bool harness_check_golden(const char *file, int line, const char *dir, const char *name,
			  const char *got);
#define CHECK_GOLDEN(dir, name, got) harness_check_golden(__FILE__, __LINE__, dir, name, got)

#define SKIP(why)                                                                                  \
	do {                                                                                       \
		harness_skip(why);                                                                 \
		return;                                                                            \
	} while (0)

#endif
