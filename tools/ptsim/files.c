/* SPDX-License-Identifier: BSD-3-Clause */
/* Writing and reading ptsim's files; see files.h. */
#define _POSIX_C_SOURCE 200809L /* strtok_r */

#include "files.h"

#include "ptdecode/ptdecode.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Longest line in a .truth or .cfg file. */
#define PTSIM_LINE_MAX 512

/* Longest file name. */
#define PTSIM_PATH_MAX 4096

static const struct {
	unsigned flag;
	char letter;
} ptsim_flag_letters[] = {
        {PTSIM_ELIGIBLE, 'e'},
        {PTSIM_HEADER, 'h'},
        {PTSIM_STANDALONE, 's'},
        {PTSIM_WAKE, 'w'},
};

#define PTSIM_NFLAGS                                                           \
	(sizeof(ptsim_flag_letters) / sizeof(ptsim_flag_letters[0]))

void ptsim_flags_str(char *out, unsigned flags)
{
	size_t i, n = 0;

	for (i = 0; i < PTSIM_NFLAGS; ++i)
		if (flags & ptsim_flag_letters[i].flag)
			out[n++] = ptsim_flag_letters[i].letter;
	if (!n)
		out[n++] = '-';
	out[n] = '\0';
}

static int ptsim_flags_parse(const char *s, uint8_t *flags)
{
	*flags = 0;
	if (strcmp(s, "-") == 0)
		return 0;
	for (; *s; ++s) {
		size_t i;

		for (i = 0; i < PTSIM_NFLAGS; ++i)
			if (*s == ptsim_flag_letters[i].letter)
				break;
		if (i == PTSIM_NFLAGS)
			return -1;
		*flags |= (uint8_t)ptsim_flag_letters[i].flag;
	}
	return 0;
}

static int ptsim_path(char *path, const char *prefix, const char *ext,
                      char *msg, size_t size)
{
	int n = snprintf(path, PTSIM_PATH_MAX, "%s%s", prefix, ext);

	if (n < 0 || n >= PTSIM_PATH_MAX) {
		snprintf(msg, size, "file name too long: %s%s", prefix, ext);
		return -1;
	}
	return 0;
}

/* Open @path with fopen() @mode; if it fails, say so in @msg. */
static FILE *ptsim_fopen(const char *path, const char *mode, char *msg,
                         size_t size)
{
	FILE *f = fopen(path, mode);

	if (!f)
		snprintf(msg, size, "cannot %s %s: %s",
		         mode[0] == 'w' ? "create" : "open", path,
		         strerror(errno));
	return f;
}

/* Close @f, reporting a write error on @path. */
static int ptsim_close(FILE *f, const char *path, int rc, char *msg,
                       size_t size)
{
	if (ferror(f))
		rc = -1;
	if (fclose(f) != 0)
		rc = -1;
	if (rc < 0)
		snprintf(msg, size, "cannot write %s: %s", path,
		         strerror(errno));
	return rc;
}

/* ------------------------------------------------------------------------ */
/* Writing                                                                   */
/* ------------------------------------------------------------------------ */

static int ptsim_write_pt(const struct ptsim_trace *t, const char *path,
                          char *msg, size_t size)
{
	FILE *f = ptsim_fopen(path, "wb", msg, size);
	int rc = 0;

	if (!f)
		return -1;
	if (t->size && fwrite(t->buf, 1, t->size, f) != t->size)
		rc = -1;
	return ptsim_close(f, path, rc, msg, size);
}

static int ptsim_write_truth(const struct ptsim_trace *t, const char *path,
                             char *msg, size_t size)
{
	FILE *f = ptsim_fopen(path, "w", msg, size);
	size_t i;

	if (!f)
		return -1;
	fprintf(f,
	        "# ptsim truth v1: scenario %s seed %" PRIu64 "\n"
	        "# offset type tsc host art cycles cbr flags\n",
	        t->params.name, t->params.seed);
	for (i = 0; i < t->nrecs; ++i) {
		const struct ptsim_rec *r = &t->recs[i];
		char flags[8];

		ptsim_flags_str(flags, r->flags);
		fprintf(f,
		        "0x%" PRIx64 " %s 0x%" PRIx64 " 0x%" PRIx64
		        " 0x%" PRIx64 " %" PRIu64 " %u %s\n",
		        r->offset, ptd_packet_type_name(r->packet.type), r->tsc,
		        r->host, r->art, r->cycles, r->cbr, flags);
	}
	return ptsim_close(f, path, 0, msg, size);
}

static int ptsim_write_cfg(const struct ptsim_trace *t, const char *path,
                           char *msg, size_t size)
{
	const struct ptsim_params *p = &t->params;
	FILE *f = ptsim_fopen(path, "w", msg, size);

	if (!f)
		return -1;
	fprintf(f,
	        "# ptsim decoder configuration: scenario %s seed %" PRIu64 "\n"
	        "# the pt_config fields a decoder needs\n"
	        "cpu %s\n"
	        "mtc_freq %" PRIu64 "\n"
	        "nom_freq %" PRIu64 "\n"
	        "cpuid_0x15_eax %" PRIu64 "\n"
	        "cpuid_0x15_ebx %" PRIu64 "\n"
	        "# VMX TSC scaling (48 fraction bits; 0: none) and offsetting\n"
	        "vmx_tsc_multiplier 0x%" PRIx64 "\n"
	        "vmx_tsc_offset 0x%" PRIx64 "\n"
	        "# the model (ptsim parameters; enough to regenerate the "
	        "trace)\n"
	        "sim.scenario %s\n"
	        "sim.seed %" PRIu64 "\n",
	        p->name, p->seed, p->cpu, p->mtc_freq, p->nom_freq, p->eax,
	        p->ebx, p->vmx_multiplier, p->vmx_offset, p->name, p->seed);
	ptsim_params_dump(f, p, "sim.");
	return ptsim_close(f, path, 0, msg, size);
}

int ptsim_write_files(const struct ptsim_trace *trace, const char *prefix,
                      char *msg, size_t size)
{
	char path[PTSIM_PATH_MAX];

	if (ptsim_path(path, prefix, ".pt", msg, size) < 0 ||
	    ptsim_write_pt(trace, path, msg, size) < 0 ||
	    ptsim_path(path, prefix, ".truth", msg, size) < 0 ||
	    ptsim_write_truth(trace, path, msg, size) < 0 ||
	    ptsim_path(path, prefix, ".cfg", msg, size) < 0 ||
	    ptsim_write_cfg(trace, path, msg, size) < 0)
		return -1;
	return 0;
}

/* ------------------------------------------------------------------------ */
/* Reading                                                                   */
/* ------------------------------------------------------------------------ */

/* The decoder keys of a .cfg file and the parameters they set. */
static const struct {
	const char *key;
	const char *param;
} ptsim_cfg_keys[] = {
        {"cpu", "cpu"},
        {"mtc_freq", "mtc_freq"},
        {"nom_freq", "nom_freq"},
        {"cpuid_0x15_eax", "eax"},
        {"cpuid_0x15_ebx", "ebx"},
        {"vmx_tsc_multiplier", "vmx_multiplier"},
        {"vmx_tsc_offset", "vmx_offset"},
};

static int ptsim_cfg_line(struct ptsim_params *p, const char *key,
                          const char *value, char *msg, size_t size)
{
	size_t i;

	if (strcmp(key, "sim.scenario") == 0) {
		if (strlen(value) >= sizeof(p->name)) {
			snprintf(msg, size, "scenario name too long");
			return -1;
		}
		snprintf(p->name, sizeof(p->name), "%s", value);
		return 0;
	}
	if (strcmp(key, "sim.seed") == 0) {
		char *end;

		errno = 0;
		p->seed = strtoull(value, &end, 0);
		if (errno || end == value || *end) {
			snprintf(msg, size, "sim.seed: bad value '%s'", value);
			return -1;
		}
		return 0;
	}
	if (strncmp(key, "sim.", 4) == 0)
		return ptsim_params_set(p, key + 4, value, msg, size);
	for (i = 0; i < sizeof(ptsim_cfg_keys) / sizeof(ptsim_cfg_keys[0]); ++i)
		if (strcmp(key, ptsim_cfg_keys[i].key) == 0)
			return ptsim_params_set(p, ptsim_cfg_keys[i].param,
			                        value, msg, size);
	snprintf(msg, size, "unknown key '%s'", key);
	return -1;
}

static int ptsim_read_cfg(struct ptsim_params *p, const char *path, char *msg,
                          size_t size)
{
	char line[PTSIM_LINE_MAX], err[256];
	FILE *f = ptsim_fopen(path, "r", msg, size);
	unsigned lineno = 0;

	if (!f)
		return -1;
	ptsim_params_default(p);
	while (fgets(line, sizeof(line), f)) {
		char key[128], value[128];
		int n;

		lineno += 1;
		if (line[0] == '#' || line[0] == '\n')
			continue;
		n = sscanf(line, "%127s %127s", key, value);
		if (n != 2 ||
		    ptsim_cfg_line(p, key, value, err, sizeof(err)) < 0) {
			if (n != 2)
				snprintf(err, sizeof(err),
				         "expected '<key> <value>'");
			snprintf(msg, size, "%s:%u: %s", path, lineno, err);
			fclose(f);
			return -1;
		}
	}
	fclose(f);
	return ptsim_params_check(p, msg, size);
}

static int ptsim_read_pt(struct ptsim_trace *t, const char *path, char *msg,
                         size_t size)
{
	FILE *f = ptsim_fopen(path, "rb", msg, size);
	long len;

	if (!f)
		return -1;
	if (fseek(f, 0, SEEK_END) != 0 || (len = ftell(f)) < 0 ||
	    fseek(f, 0, SEEK_SET) != 0) {
		snprintf(msg, size, "cannot read %s: %s", path,
		         strerror(errno));
		fclose(f);
		return -1;
	}
	t->buf = malloc(len ? (size_t)len : 1);
	if (!t->buf) {
		snprintf(msg, size, "out of memory");
		fclose(f);
		return -1;
	}
	t->size = t->cap = (size_t)len;
	if (len && fread(t->buf, 1, (size_t)len, f) != (size_t)len) {
		snprintf(msg, size, "cannot read %s", path);
		fclose(f);
		return -1;
	}
	fclose(f);
	return 0;
}

/* Parse "<offset> <type> <tsc> <host> <art> <cycles> <cbr> <flags>". */
static int ptsim_truth_line(struct ptsim_rec *r, char *line,
                            enum pt_packet_type *type)
{
	char *tok[8], *save = NULL, *s;
	uint64_t v[8];
	int i, t;

	for (i = 0, s = line; i < 8; ++i, s = NULL) {
		tok[i] = strtok_r(s, " \t\n", &save);
		if (!tok[i])
			return -1;
	}
	if (strtok_r(NULL, " \t\n", &save))
		return -1;
	for (i = 0; i < 7; ++i) {
		char *end;

		if (i == 1)
			continue;
		errno = 0;
		v[i] = strtoull(tok[i], &end, 0);
		if (errno || end == tok[i] || *end)
			return -1;
	}
	for (t = ppt_invalid; t <= ppt_bep; ++t) {
		const char *name = ptd_packet_type_name((enum pt_packet_type)t);

		if (name && strcmp(name, tok[1]) == 0)
			break;
	}
	if (t > ppt_bep || v[6] > 255)
		return -1;
	memset(r, 0, sizeof(*r));
	*type = (enum pt_packet_type)t;
	r->offset = v[0];
	r->tsc = v[2];
	r->host = v[3];
	r->art = v[4];
	r->cycles = v[5];
	r->cbr = (uint8_t)v[6];
	return ptsim_flags_parse(tok[7], &r->flags);
}

static int ptsim_read_truth(struct ptsim_trace *t, const char *path,
                            struct pt_packet_decoder *dec, char *msg,
                            size_t size)
{
	char line[PTSIM_LINE_MAX];
	FILE *f = ptsim_fopen(path, "r", msg, size);
	unsigned lineno = 0;
	int rc = 0;

	if (!f)
		return -1;
	while (rc == 0 && fgets(line, sizeof(line), f)) {
		enum pt_packet_type type;
		struct ptsim_rec *r;
		uint64_t offset;
		int status;

		lineno += 1;
		if (line[0] == '#' || line[0] == '\n')
			continue;
		if (t->nrecs == t->rcap) {
			size_t cap = t->rcap ? 2 * t->rcap : 4096;
			struct ptsim_rec *recs =
			        realloc(t->recs, cap * sizeof(*recs));

			if (!recs) {
				snprintf(msg, size, "out of memory");
				rc = -1;
				break;
			}
			t->recs = recs;
			t->rcap = cap;
		}
		r = &t->recs[t->nrecs];
		if (ptsim_truth_line(r, line, &type) < 0) {
			snprintf(msg, size, "%s:%u: bad truth line", path,
			         lineno);
			rc = -1;
			break;
		}
		status = pt_pkt_get_offset(dec, &offset);
		if (status >= 0)
			status =
			        pt_pkt_next(dec, &r->packet, sizeof(r->packet));
		if (status < 0 || offset != r->offset ||
		    r->packet.type != type) {
			snprintf(msg, size,
			         "%s:%u: the truth says %s at 0x%" PRIx64
			         ", the trace has %s at 0x%" PRIx64,
			         path, lineno, ptd_packet_type_name(type),
			         r->offset,
			         status < 0
			                 ? pt_errstr(pt_errcode(status))
			                 : ptd_packet_type_name(r->packet.type),
			         offset);
			rc = -1;
			break;
		}
		t->nrecs += 1;
	}
	fclose(f);
	if (rc == 0) {
		uint64_t offset = 0;

		(void)pt_pkt_get_offset(dec, &offset);
		if (offset != t->size) {
			snprintf(msg, size,
			         "%s: the truth ends at 0x%" PRIx64
			         ", the trace at 0x%zx",
			         path, offset, t->size);
			rc = -1;
		}
	}
	return rc;
}

int ptsim_read_files(struct ptsim_trace *trace, const char *prefix, char *msg,
                     size_t size)
{
	char path[PTSIM_PATH_MAX];
	struct pt_packet_decoder *dec;
	struct pt_config config;
	int rc;

	memset(trace, 0, sizeof(*trace));
	if (ptsim_path(path, prefix, ".cfg", msg, size) < 0 ||
	    ptsim_read_cfg(&trace->params, path, msg, size) < 0 ||
	    ptsim_path(path, prefix, ".pt", msg, size) < 0 ||
	    ptsim_read_pt(trace, path, msg, size) < 0) {
		ptsim_trace_fini(trace);
		return -1;
	}
	if (ptsim_decoder_config(&config, &trace->params, trace->buf,
	                         trace->buf + trace->size) < 0) {
		snprintf(msg, size, "bad cpu '%s'", trace->params.cpu);
		ptsim_trace_fini(trace);
		return -1;
	}
	dec = pt_pkt_alloc_decoder(&config);
	if (!dec || pt_pkt_sync_set(dec, 0) < 0) {
		snprintf(msg, size, "cannot decode %s%s", prefix, ".pt");
		pt_pkt_free_decoder(dec);
		ptsim_trace_fini(trace);
		return -1;
	}
	rc = ptsim_path(path, prefix, ".truth", msg, size);
	if (rc == 0)
		rc = ptsim_read_truth(trace, path, dec, msg, size);
	pt_pkt_free_decoder(dec);
	if (rc < 0)
		ptsim_trace_fini(trace);
	return rc;
}
