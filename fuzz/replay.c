/* SPDX-License-Identifier: MIT */
/*
 * replay.c - run a fuzz harness over a corpus without libFuzzer, so the corpus is a
 * regression test under gcc and under ASan+UBSan.
 *   NAME-replay DIR_OR_FILE...
 * One line per input; a broken invariant aborts (and the test runner reports it).
 */
#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

int LLVMFuzzerTestOneInput(const unsigned char *data, size_t size);

#define REPLAY_MAX_INPUT (1 << 20)

static int replay_file(const char *path)
{
	static unsigned char buf[REPLAY_MAX_INPUT];
	FILE *f = fopen(path, "rb");
	size_t n;

	if (!f) {
		fprintf(stderr, "replay: cannot open %s: %s\n", path, strerror(errno));
		return -1;
	}
	n = fread(buf, 1, sizeof(buf), f);
	fclose(f);
	LLVMFuzzerTestOneInput(buf, n);
	printf("ok   %s (%zu bytes)\n", path, n);
	return 0;
}

static int by_name(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

int main(int argc, char **argv)
{
	int passed = 0, failed = 0;

	for (int i = 1; i < argc; i++) {
		struct stat st;
		if (stat(argv[i], &st) < 0) {
			fprintf(stderr, "replay: %s: %s\n", argv[i], strerror(errno));
			failed++;
			continue;
		}
		if (!S_ISDIR(st.st_mode)) {
			replay_file(argv[i]) < 0 ? failed++ : passed++;
			continue;
		}
		struct dirent **names;
		int n = scandir(argv[i], &names, NULL, NULL);
		if (n < 0) {
			fprintf(stderr, "replay: %s: %s\n", argv[i], strerror(errno));
			failed++;
			continue;
		}
		qsort(names, (size_t)n, sizeof(*names), by_name);
		for (int k = 0; k < n; k++) {
			char path[4096];
			if (names[k]->d_name[0] != '.') {
				snprintf(path, sizeof(path), "%s/%s", argv[i], names[k]->d_name);
				replay_file(path) < 0 ? failed++ : passed++;
			}
			free(names[k]);
		}
		free(names);
	}
	if (passed + failed == 0) {
		fprintf(stderr, "replay: no inputs\n");
		failed = 1;
	}
	printf("%d passed, %d failed\n", passed, failed);
	return failed ? 1 : 0;
}
