/* SPDX-License-Identifier: MIT */
/*
 * fuzz-profile.c - the lab's profile parser (src/lab/profile.c) on arbitrary text.
 *
 * The first byte picks the target: even, the rest is a profile file; odd, the rest is
 * one `--set` word. Invariants: the parser returns 0 or -EINVAL (never another error,
 * never a crash), and on -EINVAL writes a non-empty message; a profile that parsed
 * passes lab_profile_check(), describes itself, and formats to a text that parses
 * into fresh defaults to the same bytes; a refused --set leaves the profile untouched.
 *
 * "base = PATH" lines read files: relative to the working directory here, regular
 * files only (so a FIFO or /dev/stdin never blocks the fuzzer).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lab/profile.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void fail(const char *what, int r, const char *err)
{
	fprintf(stderr, "fuzz-profile: %s (%d): %s\n", what, r, err);
	abort();
}

/* A parsed profile must be usable and survive format -> parse unchanged. */
static void check_parsed(const struct lab_profile *p)
{
	static char text[LAB_PROFILE_TEXT_MAX];
	struct lab_profile q;
	char err[512] = "", line[1024];
	int n, r;

	r = lab_profile_check(p, err, sizeof(err));
	if (r)
		fail("parsed profile fails the check", r, err);
	n = lab_profile_describe(p, line, sizeof(line));
	if (n <= 0 || (size_t)n != strlen(line))
		fail("describe", n, "");
	n = lab_profile_format(p, text, sizeof(text));
	if (n <= 0 || (size_t)n != strlen(text))
		fail("format", n, "");
	lab_profile_defaults(&q);
	r = lab_profile_parse(&q, text, (size_t)n, "formatted.conf", err, sizeof(err));
	if (r)
		fail("formatted profile does not parse", r, err);
	if (memcmp(p, &q, sizeof(q)))
		fail("formatted profile parses to other values", 0, text);
}

static void fuzz_text(const uint8_t *data, size_t size)
{
	struct lab_profile p;
	char err[512] = "";
	int r;

	lab_profile_defaults(&p);
	r = lab_profile_parse(&p, (const char *)data, size, "fuzz.conf", err, sizeof(err));
	if (r == -EINVAL) {
		if (!err[0])
			fail("error without a message", r, "");
		return;
	}
	if (r)
		fail("unexpected error", r, err);
	check_parsed(&p);
}

static void fuzz_set(const uint8_t *data, size_t size)
{
	struct lab_profile p, before;
	char word[LAB_PROFILE_LINE_MAX + 64], err[512] = "";
	int r;

	if (size >= sizeof(word))
		size = sizeof(word) - 1;
	memcpy(word, data, size);
	word[size] = '\0';
	lab_profile_defaults(&p);
	memcpy(&before, &p, sizeof(p));
	r = lab_profile_set_word(&p, word, err, sizeof(err));
	if (r == -EINVAL) {
		if (!err[0])
			fail("--set error without a message", r, word);
		if (memcmp(&p, &before, sizeof(p)))
			fail("refused --set changed the profile", r, word);
		return;
	}
	if (r)
		fail("unexpected --set error", r, err);
	check_parsed(&p);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (!size)
		return 0;
	if (data[0] & 1)
		fuzz_set(data + 1, size - 1);
	else
		fuzz_text(data + 1, size - 1);
	return 0;
}
