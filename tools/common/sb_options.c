/* SPDX-License-Identifier: BSD-3-Clause */
/* The sideband options (--pevent*, --sb:*) and the loading of sideband
 * files; see sb.h. */
#define _POSIX_C_SOURCE 200809L

#include "sb.h"
#include "tool_args.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

void ptd_sb_init(struct ptd_sb_session *s)
{
	memset(s, 0, sizeof(*s));
	ptd_pevent_config_init(&s->config.pevent);
	s->config.kernel_start = UINT64_MAX;
	s->out = stdout;
}

void ptd_sb_fini(struct ptd_sb_session *s)
{
	for (size_t i = 0; i < s->num_channels; ++i) {
		free(s->channels[i]->name);
		free(s->channels[i]->buf);
		free((void *)s->channels[i]->config.pevent.by_id);
		free(s->channels[i]);
	}
	free(s->ids);
	s->ids = NULL;
	s->nids = 0;
	s->cap_ids = 0;
	free(s->channels);
	s->channels = NULL;
	s->num_channels = 0;
	s->cap_channels = 0;
	s->active = NULL;
	s->retired = NULL;
	s->dropped = NULL;
}

/* The print flag of option @arg, or 0. */
static uint32_t sb_print_flag(const char *arg, enum ptd_sb_tool tool)
{
	if (!strcmp(arg, "--sb:compact") || !strcmp(arg, "--sb"))
		return ptd_sb_print_compact;
	if (!strcmp(arg, "--sb:verbose"))
		return ptd_sb_print_verbose;
	if (!strcmp(arg, "--sb:filename"))
		return ptd_sb_print_filename;
	if (!strcmp(arg, "--sb:offset"))
		return ptd_sb_print_offset;
	if (!strcmp(arg, "--sb:time"))
		return ptd_sb_print_time;
	if (!strcmp(arg, "--sb:warn"))
		return ptd_sb_print_warn;
	if (!strcmp(arg, "--sb:switch") && tool == ptd_sb_ptxed)
		return ptd_sb_print_switch;
	return 0;
}

/* The number after option argv[*@idx], at most @max (ptd_tool_number()).
 * Returns 0, or -1 after a message. */
static int sb_number(uint64_t *value, uint64_t max, int argc, char *argv[],
                     int *idx, const char *prog, FILE *err)
{
	const char *arg = *idx + 1 < argc ? argv[*idx + 1] : NULL;

	if (!ptd_tool_number(value, max, argv[*idx], arg, prog, err))
		return -1;
	*idx += 1;
	return 0;
}

/* The string after option argv[*@idx] (taken as it is).  Returns it, or
 * NULL after a message. */
static const char *sb_string(int argc, char *argv[], int *idx, const char *prog,
                             FILE *err)
{
	if (*idx + 1 >= argc) {
		fprintf(err, "%s: %s: missing argument.\n", prog, argv[*idx]);
		return NULL;
	}
	*idx += 1;
	return argv[*idx];
}

/* Read @size bytes (0, or more than there are: to the end of the file) at
 * @from of @path into @ch.  Returns 0, or -1 after a message. */
static int sb_load(struct ptd_sb_channel *ch, const char *path, uint64_t from,
                   uint64_t size, const char *prog, FILE *err)
{
	const char *why = NULL;
	struct stat st;
	FILE *file;
	uint64_t end;
	size_t got;

	file = fopen(path, "rb");
	if (!file || fstat(fileno(file), &st) != 0)
		why = strerror(errno);
	else if (!S_ISREG(st.st_mode))
		why = S_ISDIR(st.st_mode) ? strerror(EISDIR)
		                          : "not a regular file";
	if (why) {
		/* libipt's words, and why. */
		fprintf(err, "%s: error loading %s: %s (%s).\n", prog, path,
		        pt_errstr(pte_bad_file), why);
		if (file)
			fclose(file);
		return -1;
	}
	end = (uint64_t)st.st_size;
	if (size && from < end && size < end - from)
		end = from + size;
	if (from > end) {
		fprintf(err,
		        "%s: error loading %s: offset 0x%llx lies beyond the "
		        "end of the file (0x%llx bytes).\n",
		        prog, path, (unsigned long long)from,
		        (unsigned long long)st.st_size);
		fclose(file);
		return -1;
	}
	ch->size = (size_t)(end - from);
	ch->buf = malloc(ch->size ? ch->size : 1);
	if (!ch->buf) {
		fprintf(err, "%s: error loading %s: %s.\n", prog, path,
		        pt_errstr(pte_nomem));
		fclose(file);
		return -1;
	}
	if (fseeko(file, (off_t)from, SEEK_SET) != 0) {
		fprintf(err, "%s: error loading %s: %s.\n", prog, path,
		        pt_errstr(pte_bad_file));
		fclose(file);
		return -1;
	}
	got = fread(ch->buf, 1, ch->size, file);
	fclose(file);
	if (got != ch->size) {
		fprintf(err, "%s: error loading %s: %s.\n", prog, path,
		        pt_errstr(pte_bad_file));
		return -1;
	}
	return 0;
}

/* --pevent:sample-config <id>:<sample type>: records that end in the
 * identifier <id> have that sample type (libipt 2.1).  Returns 0, or -1
 * after a message. */
static int sb_sample_config(struct ptd_sb_session *s, const char *arg,
                            const char *prog, FILE *err)
{
	struct ptd_pevent_sample_config e;
	char *rest;

	errno = 0;
	e.identifier = strtoull(arg, &rest, 0);
	if (errno || rest == arg || *rest != ':')
		goto bad;
	e.sample_type = strtoull(rest + 1, &rest, 0);
	if (errno || *rest)
		goto bad;
	if (s->nids == s->cap_ids) {
		size_t cap = s->cap_ids ? 2 * s->cap_ids : 4;
		struct ptd_pevent_sample_config *grown =
		        realloc(s->ids, cap * sizeof(*grown));

		if (!grown) {
			fprintf(err, "%s: out of memory.\n", prog);
			return -1;
		}
		s->ids = grown;
		s->cap_ids = cap;
	}
	s->ids[s->nids++] = e;
	return 0;
bad:
	fprintf(err, "%s: bad sample config %s: %s.\n", prog, arg,
	        pt_errstr(pte_invalid));
	return -1;
}

/* A file option: load @arg with the settings so far. */
static int sb_file(struct ptd_sb_session *s, const char *arg, int primary,
                   const char *prog, FILE *err)
{
	struct ptd_sb_channel *ch;
	uint64_t from, size;
	char *name = strdup(arg);

	if (!name) {
		fprintf(err, "%s: out of memory.\n", prog);
		return -1;
	}
	if (ptd_tool_split_range(name, &from, &size) < 0) {
		fprintf(err, "%s: bad file %s: %s.\n", prog, arg,
		        pt_errstr(pte_invalid));
		free(name);
		return -1;
	}
	if (s->num_channels == s->cap_channels) {
		size_t cap = s->cap_channels ? 2 * s->cap_channels : 8;
		struct ptd_sb_channel **grown =
		        realloc(s->channels, cap * sizeof(*grown));

		if (!grown) {
			free(name);
			fprintf(err, "%s: out of memory.\n", prog);
			return -1;
		}
		s->channels = grown;
		s->cap_channels = cap;
	}
	ch = calloc(1, sizeof(*ch));
	if (!ch) {
		free(name);
		fprintf(err, "%s: out of memory.\n", prog);
		return -1;
	}
	ch->name = name;
	ch->config = s->config;
	ch->config.pevent.by_id = NULL;
	ch->config.pevent.nby_id = 0;
	ch->primary = primary;
	/* The channel's own copy of the sample types by identifier, so that
	 * later entries do not change it. */
	if (s->nids) {
		struct ptd_pevent_sample_config *ids =
		        malloc(s->nids * sizeof(*ids));

		if (!ids) {
			free(ch->name);
			free(ch);
			fprintf(err, "%s: out of memory.\n", prog);
			return -1;
		}
		memcpy(ids, s->ids, s->nids * sizeof(*ids));
		ch->config.pevent.by_id = ids;
		ch->config.pevent.nby_id = s->nids;
	}
	if (sb_load(ch, ch->name, from, size, prog, err) < 0) {
		free((void *)ch->config.pevent.by_id);
		free(ch->buf);
		free(ch->name);
		free(ch);
		return -1;
	}
	s->channels[s->num_channels++] = ch;
	return 0;
}

int ptd_sb_option(struct ptd_sb_session *s, enum ptd_sb_tool tool, int argc,
                  char *argv[], int *idx, const char *prog, FILE *err)
{
	const char *arg = argv[*idx];
	struct ptd_sb_config *c = &s->config;
	uint32_t flag = sb_print_flag(arg, tool);
	uint64_t value;
	const char *str;

	if (flag) {
		s->print |= flag;
		/* Compact and verbose exclude each other. */
		if (flag == ptd_sb_print_compact)
			s->print &= ~(uint32_t)ptd_sb_print_verbose;
		else if (flag == ptd_sb_print_verbose)
			s->print &= ~(uint32_t)ptd_sb_print_compact;
		return 1;
	}
	if (strncmp(arg, "--pevent", 8) != 0)
		return 0;

	if ((!strcmp(arg, "--pevent") && tool == ptd_sb_ptdump) ||
	    !strcmp(arg, "--pevent:primary") ||
	    !strcmp(arg, "--pevent:secondary")) {
		str = sb_string(argc, argv, idx, prog, err);
		if (!str ||
		    sb_file(s, str, strcmp(arg, "--pevent:secondary") != 0,
		            prog, err) < 0)
			return -1;
		return 1;
	}
	if (!strcmp(arg, "--pevent:sample-type")) {
		if (sb_number(&value, UINT64_MAX, argc, argv, idx, prog, err))
			return -1;
		c->pevent.sample_type = value;
		return 1;
	}
	if (!strcmp(arg, "--pevent:sample-config")) {
		str = sb_string(argc, argv, idx, prog, err);
		if (!str || sb_sample_config(s, str, prog, err) < 0)
			return -1;
		return 1;
	}
	if (!strcmp(arg, "--pevent:time-zero")) {
		if (sb_number(&value, UINT64_MAX, argc, argv, idx, prog, err))
			return -1;
		c->pevent.tc.time_zero = value;
		return 1;
	}
	if (!strcmp(arg, "--pevent:time-shift")) {
		if (sb_number(&value, UINT16_MAX, argc, argv, idx, prog, err))
			return -1;
		/* (libipt shifts by the value: x86 takes it modulo 64.) */
		c->pevent.tc.time_shift = (uint16_t)(value & 63);
		return 1;
	}
	if (!strcmp(arg, "--pevent:time-mult")) {
		if (sb_number(&value, UINT32_MAX, argc, argv, idx, prog, err))
			return -1;
		c->pevent.tc.time_mult = (uint32_t)value;
		return 1;
	}
	if (!strcmp(arg, "--pevent:tsc-offset")) {
		if (sb_number(&value, UINT64_MAX, argc, argv, idx, prog, err))
			return -1;
		c->tsc_offset = value;
		return 1;
	}
	if (!strcmp(arg, "--pevent:kernel-start")) {
		if (sb_number(&value, UINT64_MAX, argc, argv, idx, prog, err))
			return -1;
		c->kernel_start = value;
		return 1;
	}
	if (!strcmp(arg, "--pevent:sysroot") ||
	    !strcmp(arg, "--pevent:vdso-x64") ||
	    !strcmp(arg, "--pevent:vdso-x32") ||
	    !strcmp(arg, "--pevent:vdso-ia32") ||
	    (!strcmp(arg, "--pevent:kcore") && tool == ptd_sb_ptdump)) {
		str = sb_string(argc, argv, idx, prog, err);
		if (!str)
			return -1;
		/* ptdump takes them and does nothing with them. */
		if (tool == ptd_sb_ptdump)
			return 1;
		if (!strcmp(arg, "--pevent:sysroot"))
			c->sysroot = str;
		else if (!strcmp(arg, "--pevent:vdso-x64"))
			c->vdso[ptd_sb_abi_x64] = str;
		else if (!strcmp(arg, "--pevent:vdso-x32"))
			c->vdso[ptd_sb_abi_x32] = str;
		else
			c->vdso[ptd_sb_abi_ia32] = str;
		return 1;
	}
	return 0;
}
