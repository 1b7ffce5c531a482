/* SPDX-License-Identifier: MIT */
/* harness.c - registration, the runner and the summary line of harness.h. */
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "harness.h"

#define MAX_TESTS 512

static struct {
	const char *name;
	void (*fn)(void);
} tests[MAX_TESTS];
static int ntests;

static const char *current;
static int current_failures;
static const char *current_skip;

void harness_register(const char *name, void (*fn)(void))
{
	if (ntests == MAX_TESTS) {
		fprintf(stderr, "harness: more than %d tests in one program\n", MAX_TESTS);
		exit(1);
	}
	tests[ntests].name = name;
	tests[ntests].fn = fn;
	ntests++;
}

void harness_fail(const char *file, int line, const char *expr, const char *detail)
{
	current_failures++;
	fprintf(stderr, "  %s:%d: %s: check failed: %s%s%s\n", file, line, current, expr,
		detail ? ": " : "", detail ? detail : "");
}

void harness_skip(const char *why)
{
	current_skip = why;
}

bool harness_check_eq(const char *file, int line, const char *a_expr, const char *b_expr,
		      long long a, long long b)
{
	char expr[512], detail[128];

	if (a == b)
		return true;
	snprintf(expr, sizeof(expr), "%s == %s", a_expr, b_expr);
	snprintf(detail, sizeof(detail), "%lld != %lld", a, b);
	harness_fail(file, line, expr, detail);
	return false;
}

bool harness_check_str(const char *file, int line, const char *a_expr, const char *b_expr,
		       const char *a, const char *b)
{
	char expr[512], detail[1024];

	if (a && b && !strcmp(a, b))
		return true;
	snprintf(expr, sizeof(expr), "%s == %s", a_expr, b_expr);
	snprintf(detail, sizeof(detail), "\"%s\" != \"%s\"", a ? a : "(null)", b ? b : "(null)");
	harness_fail(file, line, expr, detail);
	return false;
}

static bool selected(const char *name, int argc, char **argv)
{
	if (argc < 2)
		return true;
	for (int i = 1; i < argc; i++)
		if (!strcmp(argv[i], name))
			return true;
	return false;
}

int main(int argc, char **argv)
{
	int passed = 0, failed = 0, skipped = 0;

	setvbuf(stdout, NULL, _IOLBF, 0);
	for (int i = 0; i < ntests; i++) {
		if (!selected(tests[i].name, argc, argv))
			continue;
		current = tests[i].name;
		current_failures = 0;
		current_skip = NULL;
		tests[i].fn();
		if (current_failures) {
			failed++;
			printf("FAIL %s\n", current);
		} else if (current_skip) {
			skipped++;
			printf("SKIP %s: %s\n", current, current_skip);
		} else {
			passed++;
			printf("ok   %s\n", current);
		}
	}
	if (skipped)
		printf("%d passed, %d failed, %d skipped\n", passed, failed, skipped);
	else
		printf("%d passed, %d failed\n", passed, failed);
	if (failed)
		return 1;
	if (skipped && !passed)
		return 77;
	return 0;
}

static int is_dir(const char *path)
{
	struct stat st;

	return stat(path, &st) == 0 && S_ISDIR(st.st_mode);
}

const char *harness_source_dir(const char *rel)
{
	static char dir[PATH_MAX];
	char exe[PATH_MAX];
	ssize_t n;

	if (is_dir(rel))
		return rel;
	n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
	if (n <= 0)
		return NULL;
	exe[n] = '\0';
	for (int up = 0; up < 5; up++) {
		char *slash = strrchr(exe, '/');

		if (!slash)
			break;
		*slash = '\0';
		snprintf(dir, sizeof(dir), "%s/%s", exe, rel);
		if (is_dir(dir))
			return dir;
	}
	return NULL;
}

static char *slurp(const char *path)
{
	FILE *f = fopen(path, "r"), *m;
	char *buf = NULL;
	size_t len = 0;
	int c;

	if (!f)
		return NULL;
	m = open_memstream(&buf, &len);
	if (m) {
		while ((c = fgetc(f)) != EOF)
			fputc(c, m);
		fclose(m);
	}
	fclose(f);
	return buf;
}

bool harness_check_golden(const char *file, int line, const char *dir, const char *name,
			  const char *got)
{
	const char *d = harness_source_dir(dir);
	char path[PATH_MAX], detail[PATH_MAX + 1024];
	size_t i = 0, n = 1, start = 0;
	char *want;
	bool ok;

	if (!d || !got) {
		harness_fail(file, line, "golden file and output", d ? "no output" : dir);
		return false;
	}
	snprintf(path, sizeof(path), "%s/%s", d, name);
	if (getenv("HARNESS_WRITE_GOLDEN")) {
		FILE *f = fopen(path, "w");

		ok = f && fputs(got, f) >= 0;
		if (f && fclose(f) != 0)
			ok = false;
		if (!ok)
			harness_fail(file, line, "golden file written", path);
		return ok;
	}
	want = slurp(path);
	if (!want) {
		harness_fail(file, line, "golden file readable", path);
		return false;
	}
	ok = !strcmp(got, want);
	if (!ok) {
		while (got[i] && got[i] == want[i]) {
			if (got[i] == '\n')
				n++, start = i + 1;
			i++;
		}
		snprintf(detail, sizeof(detail), "%s line %zu:\n  got:  %.*s\n  want: %.*s", path,
			 n, (int)strcspn(got + start, "\n"), got + start,
			 (int)strcspn(want + start, "\n"), want + start);
		harness_fail(file, line, "output == golden file", detail);
	}
	free(want);
	return ok;
}
