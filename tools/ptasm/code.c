/* SPDX-License-Identifier: BSD-3-Clause */
/* ptasm: assembling the x86 code of a .pta file with nasm. */
#define _POSIX_C_SOURCE 200809L

#include "code.h"

#include <errno.h>
#include <inttypes.h>
#include <signal.h>
#include <spawn.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

extern char **environ;

/* Return "<prefix><suffix>" in a new buffer, or NULL. */
static char *ptasm_code_name(const char *prefix, const char *suffix)
{
	size_t a = strlen(prefix), b = strlen(suffix);
	char *s = malloc(a + b + 1);

	if (!s)
		return NULL;
	memcpy(s, prefix, a);
	memcpy(s + a, suffix, b + 1);
	return s;
}

/* Write the nasm source: @text with the lines of expect blocks blanked. */
static int ptasm_code_write_source(const struct ptasm_program *program,
                                   const char *text, size_t len,
                                   const char *name, struct ptasm_diag *diag)
{
	const char *end = text + len;
	FILE *file = fopen(name, "wb");
	size_t line = 0;
	int err;

	if (!file)
		return ptasm_error(diag, 0, "cannot create %s", name);
	while (text < end) {
		const char *eol = memchr(text, '\n', (size_t)(end - text));
		size_t n = eol ? (size_t)(eol - text) : (size_t)(end - text);

		if (line >= program->code.nlines || !program->code.skip[line])
			fwrite(text, 1, n, file);
		fputc('\n', file);
		line += 1;
		text += n + (eol ? 1 : 0);
	}
	err = ferror(file);
	if (fclose(file) != 0 || err)
		return ptasm_error(diag, 0, "cannot write %s", name);
	return 0;
}

/* Report nasm's messages, read from @fd: "<asm>:<line>: <kind>: <text>"
 * becomes "<pta>:<line>: <kind>: nasm: <text>". */
static void ptasm_code_report(int fd, const char *asm_name,
                              struct ptasm_diag *diag, int *errors)
{
	struct ptasm_bytes buf;
	size_t alen = strlen(asm_name);
	char *line;

	memset(&buf, 0, sizeof(buf));
	for (;;) {
		ssize_t n;

		if (ptasm_bytes_reserve(&buf, 4096) < 0)
			break;
		n = read(fd, buf.data + buf.len, 4096);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			break;
		buf.len += (size_t)n;
	}
	if (ptasm_bytes_append(&buf, "", 1) < 0) {
		ptasm_bytes_free(&buf);
		ptasm_error(diag, 0, "out of memory");
		*errors += 1;
		return;
	}
	for (line = (char *)buf.data; line && *line;) {
		char *eol = strchr(line, '\n');
		unsigned long num = 0;
		char *rest = line;

		if (eol)
			*eol = '\0';
		if (strncmp(line, asm_name, alen) == 0 && line[alen] == ':') {
			num = strtoul(line + alen + 1, &rest, 10);
			if (*rest == ':')
				++rest;
			while (*rest == ' ')
				++rest;
		}
		if (strncmp(rest, "warning: ", 9) == 0) {
			fprintf(diag->out, "%s:%lu: warning: nasm: %s\n",
			        diag->file, num, rest + 9);
		} else if (*rest) {
			if (strncmp(rest, "error: ", 7) == 0)
				rest += 7;
			ptasm_error(
			        diag, (unsigned)num, "nasm: %s%s", rest,
			        strstr(rest, "label or instruction expected")
			                ? " (a label named like a register, "
			                  "e.g. k0 to k7?)"
			                : "");
			*errors += 1;
		}
		line = eol ? eol + 1 : NULL;
	}
	ptasm_bytes_free(&buf);
}

/* Run nasm on @asm_name, writing @bin_name and the map file @map_name. */
static int ptasm_code_run_nasm(const char *asm_name, const char *bin_name,
                               const char *map_name, struct ptasm_diag *diag)
{
	const char *nasm = getenv("PTASM_NASM");
	posix_spawn_file_actions_t actions;
	char *before, *argv[9];
	int fds[2], err, status = 0, errors = 0;
	pid_t pid;

	if (!nasm || !*nasm)
		nasm = "nasm";
	before = ptasm_code_name("[map all ", map_name);
	if (before) {
		char *b = ptasm_code_name(before, "]");

		free(before);
		before = b;
	}
	if (!before)
		return ptasm_error(diag, 0, "out of memory");
	argv[0] = (char *)nasm;
	argv[1] = (char *)"-f";
	argv[2] = (char *)"bin";
	argv[3] = (char *)"-o";
	argv[4] = (char *)bin_name;
	argv[5] = (char *)"--before";
	argv[6] = before;
	argv[7] = (char *)asm_name;
	argv[8] = NULL;

	if (pipe(fds) < 0) {
		free(before);
		return ptasm_error(diag, 0, "cannot run nasm: %s",
		                   strerror(errno));
	}
	posix_spawn_file_actions_init(&actions);
	posix_spawn_file_actions_adddup2(&actions, fds[1], 1);
	posix_spawn_file_actions_adddup2(&actions, fds[1], 2);
	posix_spawn_file_actions_addclose(&actions, fds[0]);
	posix_spawn_file_actions_addclose(&actions, fds[1]);
	err = posix_spawnp(&pid, nasm, &actions, NULL, argv, environ);
	posix_spawn_file_actions_destroy(&actions);
	close(fds[1]);
	free(before);
	if (err) {
		close(fds[0]);
		return ptasm_error(diag, 0,
		                   "cannot run %s: %s (x86 code needs nasm: "
		                   "the Debian package nasm, see "
		                   "scripts/deps.sh)",
		                   nasm, strerror(err));
	}
	ptasm_code_report(fds[0], asm_name, diag, &errors);
	close(fds[0]);
	while (waitpid(pid, &status, 0) < 0) {
		if (errno != EINTR)
			return ptasm_error(diag, 0, "waiting for nasm: %s",
			                   strerror(errno));
	}
	if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) {
		if (!errors)
			ptasm_error(diag, 0, "%s failed (status %d)", nasm,
			            WIFEXITED(status) ? WEXITSTATUS(status)
			                              : -1);
		return -1;
	}
	return errors ? -1 : 0;
}

/* Add the code label @name at @addr. */
static int ptasm_code_add_symbol(struct ptasm_code *code, const char *name,
                                 uint64_t addr)
{
	void *symbols = code->symbols;

	if (ptasm_grow(&symbols, &code->symbols_cap, code->nsymbols + 1,
	               sizeof(*code->symbols)) < 0)
		return -1;
	code->symbols = symbols;
	code->symbols[code->nsymbols].name = ptasm_strndup(name, strlen(name));
	if (!code->symbols[code->nsymbols].name)
		return -1;
	code->symbols[code->nsymbols].addr = addr;
	code->nsymbols += 1;
	return 0;
}

/* Read nasm's map file (format "[map all]" of the bin output format): the
 * program origin, the sections (the binary must be one flat image: every
 * section's virtual start equals its start) and the labels. */
static int ptasm_code_read_map(struct ptasm_code *code, const char *name,
                               struct ptasm_diag *diag)
{
	enum { none, origin, sections, symbols } part = none;
	FILE *file = fopen(name, "r");
	char line[1024];
	int have_origin = 0, err = 0;

	if (!file)
		return ptasm_error(diag, 0, "nasm wrote no map file %s", name);
	while (fgets(line, sizeof(line), file)) {
		char a[64], b[64], c[64], d[64], e[64], f[512];

		if (strncmp(line, "-- ", 3) == 0) {
			if (strstr(line, "Program origin"))
				part = origin;
			else if (strstr(line, "Sections (summary)"))
				part = sections;
			else if (strstr(line, "Symbols"))
				part = symbols;
			else
				part = none;
			continue;
		}
		switch (part) {
		case origin:
			if (sscanf(line, "%63s", a) == 1) {
				code->org = strtoull(a, NULL, 16);
				have_origin = 1;
				part = none;
			}
			break;
		case sections:
			if (sscanf(line, "%63s %63s %63s %63s %63s %511s", a, b,
			           c, d, e, f) == 6 &&
			    strcmp(a, "Vstart") != 0 &&
			    strcmp(e, "nobits") != 0) {
				uint64_t vstart = strtoull(a, NULL, 16);
				uint64_t start = strtoull(b, NULL, 16);
				uint64_t stop = strtoull(c, NULL, 16);

				if (vstart != start)
					err = ptasm_error(
					        diag, code->org_line,
					        "section %s: its virtual start "
					        "0x%" PRIx64
					        " is not its start "
					        "0x%" PRIx64
					        "; ptasm needs one "
					        "flat image",
					        f, vstart, start);
				if (stop > code->org + code->size)
					code->size = stop - code->org;
			}
			break;
		case symbols:
			if (sscanf(line, "%63s %63s %511s", a, b, f) == 3 &&
			    strcmp(a, "Real") != 0 && strcmp(a, "----") != 0) {
				if (ptasm_code_add_symbol(
				            code, f, strtoull(b, NULL, 16)) < 0)
					err = ptasm_error(diag, 0,
					                  "out of memory");
			}
			break;
		case none:
			break;
		}
	}
	fclose(file);
	if (!have_origin && !err)
		err = ptasm_error(diag, code->org_line,
		                  "nasm's map file %s has no program origin",
		                  name);
	return err;
}

int ptasm_code_assemble(struct ptasm_program *program, const char *text,
                        size_t len, const char *prefix, struct ptasm_diag *diag)
{
	char *asm_name = ptasm_code_name(prefix, ".asm");
	char *bin_name = ptasm_code_name(prefix, ".bin");
	char *map_name = ptasm_code_name(prefix, ".map");
	int err;

	if (!asm_name || !bin_name || !map_name) {
		err = ptasm_error(diag, 0, "out of memory");
	} else {
		(void)remove(map_name);
		err = ptasm_code_write_source(program, text, len, asm_name,
		                              diag);
		if (!err)
			err = ptasm_code_run_nasm(asm_name, bin_name, map_name,
			                          diag);
		if (!err)
			err = ptasm_code_read_map(&program->code, map_name,
			                          diag);
		(void)remove(asm_name);
		(void)remove(map_name);
	}
	free(asm_name);
	free(bin_name);
	free(map_name);
	return err;
}

/* The bits of an IP that a packet with compression @ipc carries. */
static uint64_t ptasm_code_ip_mask(enum pt_ip_compression ipc)
{
	switch (ipc) {
	case pt_ipc_update_16:
		return UINT64_C(0xffff);
	case pt_ipc_update_32:
		return UINT64_C(0xffffffff);
	case pt_ipc_sext_48:
	case pt_ipc_update_48:
		return UINT64_C(0xffffffffffff);
	case pt_ipc_suppressed:
	case pt_ipc_full:
		break;
	}
	return UINT64_MAX;
}

int ptasm_code_resolve(struct ptasm_program *program, struct ptasm_diag *diag)
{
	int err = 0;

	for (size_t i = 0; i < program->nlabels; ++i) {
		const struct ptasm_label *label = &program->labels[i];

		if (ptasm_program_symbol(program, label->name,
		                         strlen(label->name)))
			err = ptasm_error(diag, label->line,
			                  "label '%s' names both a place in "
			                  "the trace and one in the code",
			                  label->name);
	}
	for (size_t i = 0; i < program->nstmts; ++i) {
		struct ptasm_stmt *stmt = &program->stmts[i];
		struct pt_packet_ip *ip = &stmt->packet.payload.ip;
		const struct ptasm_symbol *sym;

		if (!stmt->ip_label)
			continue;
		sym = ptasm_program_symbol(program, stmt->ip_label,
		                           strlen(stmt->ip_label));
		if (!sym) {
			err = ptasm_error(
			        diag, stmt->line,
			        program->code.present
			                ? "unknown code label '%s'"
			                : "unknown code label '%s' (IPs name "
			                  "labels of x86 code, which needs an "
			                  "org line, or '<name> = <address>' "
			                  "lines)",
			        stmt->ip_label);
			continue;
		}
		ip->ip = (sym->addr + (uint64_t)stmt->ip_adjust) &
		         ptasm_code_ip_mask(ip->ipc);
	}
	return err;
}
