/* SPDX-License-Identifier: BSD-3-Clause */
/* A main() for running a libFuzzer target without libFuzzer.
 *
 * Included at the end of a fuzz target when PTD_FUZZ_REPLAY_MAIN is
 * defined: the program then replays every file named on its command line,
 * and every file in every directory named there, through
 * LLVMFuzzerTestOneInput().  A failed check aborts, so a zero exit status
 * means that every input passed.  Built with -DPTD_SANITIZE=ON, this runs
 * the seed corpus under ASan and UBSan with any compiler. */
#ifndef PTD_FUZZ_REPLAY_MAIN_H
#define PTD_FUZZ_REPLAY_MAIN_H

#include <dirent.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Read all of @path into a buffer of exactly its size (so that ASan sees
 * reads past its end); return 0, or -1 if it is not a readable file. */
static int ptd_replay_read(const char *path, uint8_t **data, size_t *size)
{
	FILE *file = fopen(path, "rb");
	uint8_t *buf = NULL;
	size_t used = 0, cap = 0;

	if (!file)
		return -1;
	for (;;) {
		uint8_t chunk[4096];
		size_t got = fread(chunk, 1, sizeof(chunk), file);
		uint8_t *grown;

		if (!got)
			break;
		if (used + got > cap) {
			cap = (used + got) * 2;
			grown = realloc(buf, cap);
			if (!grown) {
				free(buf);
				fclose(file);
				return -1;
			}
			buf = grown;
		}
		memcpy(buf + used, chunk, got);
		used += got;
	}
	if (ferror(file)) {
		free(buf);
		fclose(file);
		return -1;
	}
	fclose(file);

	/* An exact-size copy; one byte for an empty file. */
	*data = malloc(used ? used : 1);
	if (!*data) {
		free(buf);
		return -1;
	}
	if (used)
		memcpy(*data, buf, used);
	free(buf);
	*size = used;
	return 0;
}

static int ptd_replay_file(const char *path)
{
	uint8_t *data;
	size_t size;

	if (ptd_replay_read(path, &data, &size) < 0)
		return -1;
	(void)LLVMFuzzerTestOneInput(data, size);
	free(data);
	return 0;
}

int main(int argc, char **argv)
{
	unsigned long files = 0;
	int i, status = 0;

	if (argc < 2) {
		fprintf(stderr, "usage: %s <file or directory>...\n", argv[0]);
		return 2;
	}
	for (i = 1; i < argc; ++i) {
		DIR *dir = opendir(argv[i]);
		struct dirent *entry;

		if (!dir) {
			if (ptd_replay_file(argv[i]) < 0) {
				fprintf(stderr, "%s: cannot read\n", argv[i]);
				status = 1;
				continue;
			}
			++files;
			continue;
		}
		while ((entry = readdir(dir)) != NULL) {
			size_t len;
			char *path;

			if (entry->d_name[0] == '.')
				continue;
			len = strlen(argv[i]) + strlen(entry->d_name) + 2;
			path = malloc(len);
			if (!path) {
				status = 1;
				break;
			}
			snprintf(path, len, "%s/%s", argv[i], entry->d_name);
			/* Subdirectories do not read; skip them. */
			if (ptd_replay_file(path) == 0)
				++files;
			free(path);
		}
		closedir(dir);
	}
	printf("replayed %lu input(s)\n", files);
	if (!files) {
		fprintf(stderr, "no inputs\n");
		status = 1;
	}
	return status;
}

#endif /* PTD_FUZZ_REPLAY_MAIN_H */
