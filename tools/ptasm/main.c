/* SPDX-License-Identifier: BSD-3-Clause */
/* ptasm: compile a .pta test file into a raw Intel PT trace and the expected
 * output of the tools that read it.  See docs/ptasm.md. */
#include "code.h"
#include "diag.h"
#include "encode.h"
#include "expect.h"
#include "parser.h"
#include "program.h"
#include "ptdecode/ptdecode.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Exit codes. */
enum { PTASM_EXIT_OK = 0, PTASM_EXIT_ERROR = 1, PTASM_EXIT_USAGE = 2 };

/* The command line. */
struct ptasm_options {
	const char *input;
	const char *output;
	int quiet;
};

/* The files written so far, to remove them again on error. */
struct ptasm_outputs {
	char *names[64];
	size_t n;
};

static void ptasm_usage(FILE *out, const char *prog)
{
	fprintf(out,
	        "usage: %s [<options>] <file>.pta\n"
	        "\n"
	        "Compile a ptasm test file into a raw Intel PT trace and the\n"
	        "expected output of the tools that decode it.\n"
	        "\n"
	        "options:\n"
	        "  -h, --help             print this text and exit.\n"
	        "  --version              print the version and exit.\n"
	        "  -o, --output <prefix>  name the output files <prefix>.pt,\n"
	        "                         <prefix>.bin, <prefix>-<tool>.exp\n"
	        "                         and <prefix>-<tool>.args (default:\n"
	        "                         the input file name without .pta).\n"
	        "  -q, --quiet            do not print the names of the files\n"
	        "                         written.\n"
	        "  --                     end of the options.\n"
	        "\n"
	        "outputs:\n"
	        "  <prefix>.pt            the trace.\n"
	        "  <prefix>.bin           the code image, for files with x86\n"
	        "                         code (assembled with nasm).\n"
	        "  <prefix>-<tool>.exp    the expected output of <tool>, one "
	        "per\n"
	        "                         'expect <tool>' block.\n"
	        "  <prefix>-<tool>.args   the arguments to run <tool> with, "
	        "one\n"
	        "                         per line; the last is the trace "
	        "file.\n"
	        "                         One per tool with an 'expect' "
	        "block\n"
	        "                         or '; opt(<tool>):' lines.\n"
	        "\n"
	        "A file with an 'org' line holds x86 code for nasm, with the\n"
	        "packets in '; @pt' comments.  The language is described in\n"
	        "docs/ptasm.md.\n",
	        prog);
}

/* Parse the command line.  Returns -1 to exit with @*status. */
static int ptasm_parse_args(int argc, char **argv, struct ptasm_options *opts,
                            int *status)
{
	const char *prog = argv[0] ? argv[0] : "ptasm";
	int i;

	memset(opts, 0, sizeof(*opts));
	for (i = 1; i < argc; ++i) {
		const char *arg = argv[i];

		if (strcmp(arg, "-h") == 0 || strcmp(arg, "--help") == 0) {
			ptasm_usage(stdout, prog);
			*status = PTASM_EXIT_OK;
			return -1;
		}
		if (strcmp(arg, "--version") == 0) {
			printf("ptasm-%d.%d.%d (libptdecode %s)\n",
			       PTDECODE_VERSION_MAJOR, PTDECODE_VERSION_MINOR,
			       PTDECODE_VERSION_PATCH, ptd_version_string());
			*status = PTASM_EXIT_OK;
			return -1;
		}
		if (strcmp(arg, "-o") == 0 || strcmp(arg, "--output") == 0) {
			if (i + 1 >= argc) {
				fprintf(stderr, "%s: %s: missing argument.\n",
				        prog, arg);
				*status = PTASM_EXIT_USAGE;
				return -1;
			}
			opts->output = argv[++i];
			continue;
		}
		if (strcmp(arg, "-q") == 0 || strcmp(arg, "--quiet") == 0) {
			opts->quiet = 1;
			continue;
		}
		if (strcmp(arg, "--") == 0) {
			++i;
			break;
		}
		if (arg[0] == '-' && arg[1]) {
			fprintf(stderr,
			        "%s: unknown option: %s.  Use --help for "
			        "help.\n",
			        prog, arg);
			*status = PTASM_EXIT_USAGE;
			return -1;
		}
		break;
	}
	if (i >= argc) {
		fprintf(stderr, "%s: no input file.  Use --help for help.\n",
		        prog);
		*status = PTASM_EXIT_USAGE;
		return -1;
	}
	if (i + 1 < argc) {
		fprintf(stderr,
		        "%s: only one input file, please.  Use --help for "
		        "help.\n",
		        prog);
		*status = PTASM_EXIT_USAGE;
		return -1;
	}
	opts->input = argv[i];
	return 0;
}

/* Read the file @name into a NUL-terminated buffer. */
static char *ptasm_read_file(const char *name, size_t *len,
                             struct ptasm_diag *diag)
{
	struct ptasm_bytes bytes;
	FILE *file;

	memset(&bytes, 0, sizeof(bytes));
	file = fopen(name, "rb");
	if (!file) {
		ptasm_error(diag, 0, "cannot open the file");
		return NULL;
	}
	for (;;) {
		size_t n;

		if (ptasm_bytes_reserve(&bytes, 4096) < 0) {
			ptasm_error(diag, 0, "out of memory");
			break;
		}
		n = fread(bytes.data + bytes.len, 1, 4096, file);
		bytes.len += n;
		if (n < 4096)
			break;
	}
	if (ferror(file) && !diag->errors)
		ptasm_error(diag, 0, "cannot read the file");
	fclose(file);
	if (diag->errors || ptasm_bytes_append(&bytes, "", 1) < 0) {
		if (!diag->errors)
			ptasm_error(diag, 0, "out of memory");
		ptasm_bytes_free(&bytes);
		return NULL;
	}
	*len = bytes.len - 1;
	return (char *)bytes.data;
}

/* Return "<prefix><suffix>" in a new buffer, or NULL. */
static char *ptasm_concat(const char *prefix, const char *suffix)
{
	size_t a = strlen(prefix), b = strlen(suffix);
	char *s = malloc(a + b + 1);

	if (!s)
		return NULL;
	memcpy(s, prefix, a);
	memcpy(s + a, suffix, b + 1);
	return s;
}

/* Return the output prefix: @opts->output or the input without ".pta". */
static char *ptasm_prefix(const struct ptasm_options *opts)
{
	size_t len;

	if (opts->output)
		return ptasm_concat(opts->output, "");
	len = strlen(opts->input);
	if (len > 4 && strcmp(opts->input + len - 4, ".pta") == 0) {
		char *s = ptasm_concat(opts->input, "");

		if (s)
			s[len - 4] = '\0';
		return s;
	}
	return ptasm_concat(opts->input, "");
}

/* Remember "<prefix><suffix>" as an output that another program writes. */
static int ptasm_remember(struct ptasm_outputs *outputs, const char *prefix,
                          const char *suffix, struct ptasm_diag *diag)
{
	if (outputs->n >= sizeof(outputs->names) / sizeof(outputs->names[0]))
		return ptasm_error(diag, 0, "too many output files");
	outputs->names[outputs->n] = ptasm_concat(prefix, suffix);
	if (!outputs->names[outputs->n])
		return ptasm_error(diag, 0, "out of memory");
	outputs->n += 1;
	return 0;
}

/* The file name of the @i-th sideband file of output @prefix, without its
 * folder (the tools run in the output folder): "<name>-sb<i>.sb". */
static char *ptasm_sb_name(const char *prefix, size_t i)
{
	const char *slash = strrchr(prefix, '/');
	const char *base = slash ? slash + 1 : prefix;
	size_t n = strlen(base) + 32;
	char *s = malloc(n);

	if (s)
		snprintf(s, n, "%s-sb%zu.sb", base, i);
	return s;
}

/* Encode the sideband files of @program into @trace; the MMAPs of the
 * code name the .bin file of @prefix without its folder. */
static int ptasm_encode_sideband(const struct ptasm_program *program,
                                 const char *prefix, struct ptasm_trace *trace,
                                 struct ptasm_diag *diag)
{
	const char *slash = strrchr(prefix, '/');
	char *binname = ptasm_concat(slash ? slash + 1 : prefix, ".bin");
	int err;

	if (!binname)
		return ptasm_error(diag, 0, "out of memory");
	err = ptasm_sb_encode(program, binname, &trace->sb, diag);
	free(binname);
	/* (Also after an error: the files encoded so far are freed with the
	 * trace; the others are zero.) */
	trace->nsb = trace->sb ? program->nsb : 0;
	return err < 0 ? -1 : 0;
}

/* Tools whose expectations need x86 code. */
static int ptasm_check_tools(const struct ptasm_program *program,
                             struct ptasm_diag *diag)
{
	const struct ptasm_tool *tool = ptasm_program_tool(
	        (struct ptasm_program *)program, "ptxed", strlen("ptxed"), 0);

	if (tool && tool->has_expect && !program->code.present)
		return ptasm_error(
		        diag, tool->expect_line,
		        "expect ptxed: the flow of instructions needs "
		        "x86 code (a file with an 'org' line)");
	return 0;
}

/* Open the output file @name and remember it. */
static FILE *ptasm_create(struct ptasm_outputs *outputs, const char *name,
                          struct ptasm_diag *diag)
{
	FILE *file;

	if (outputs->n >= sizeof(outputs->names) / sizeof(outputs->names[0])) {
		ptasm_error(diag, 0, "too many output files");
		return NULL;
	}
	outputs->names[outputs->n] = ptasm_concat(name, "");
	if (!outputs->names[outputs->n]) {
		ptasm_error(diag, 0, "out of memory");
		return NULL;
	}
	outputs->n += 1;
	file = fopen(name, "wb");
	if (!file)
		ptasm_error(diag, 0, "cannot create %s", name);
	return file;
}

/* Close @file, reporting write errors. */
static int ptasm_close(FILE *file, const char *name, struct ptasm_diag *diag)
{
	int err = ferror(file);

	if (fclose(file) != 0 || err)
		return ptasm_error(diag, 0, "cannot write %s", name);
	return 0;
}

/* Write one tool's expectation and arguments. */
static int ptasm_write_tool(const struct ptasm_tool *tool, const char *prefix,
                            const char *ptfile, const char *binfile,
                            char *const *sbnames,
                            const struct ptasm_program *program,
                            const struct ptasm_trace *trace,
                            const struct ptasm_range *range,
                            struct ptasm_outputs *outputs,
                            struct ptasm_diag *diag)
{
	char *base, *name;
	FILE *file;
	int err = 0;

	base = ptasm_concat(prefix, "-");
	name = base ? ptasm_concat(base, tool->name) : NULL;
	free(base);
	base = name;
	if (!base)
		return ptasm_error(diag, 0, "out of memory");

	if (tool->has_expect) {
		name = ptasm_concat(base, ".exp");
		file = name ? ptasm_create(outputs, name, diag) : NULL;
		if (!file) {
			err = name ? -1 : ptasm_error(diag, 0, "out of memory");
		} else {
			err = ptasm_write_expect(file, tool, program, trace,
			                         range, diag);
			if (ptasm_close(file, name, diag) < 0)
				err = -1;
		}
		free(name);
	}

	if (!err) {
		name = ptasm_concat(base, ".args");
		file = name ? ptasm_create(outputs, name, diag) : NULL;
		if (!file) {
			err = name ? -1 : ptasm_error(diag, 0, "out of memory");
		} else {
			if (ptasm_write_args(file, tool, program, ptfile,
			                     binfile, sbnames, range) < 0)
				err = -1;
			if (ptasm_close(file, name, diag) < 0)
				err = -1;
		}
		free(name);
	}
	free(base);
	return err;
}

/* Write every output file. */
static int ptasm_write_outputs(const char *prefix,
                               const struct ptasm_program *program,
                               const struct ptasm_trace *trace,
                               const struct ptasm_range *range,
                               struct ptasm_outputs *outputs,
                               struct ptasm_diag *diag)
{
	char *ptfile = ptasm_concat(prefix, ".pt");
	char *binfile = ptasm_concat(prefix, ".bin");
	char **sbnames = NULL;
	FILE *file;
	int err = 0;

	if (!ptfile || !binfile) {
		free(ptfile);
		free(binfile);
		return ptasm_error(diag, 0, "out of memory");
	}
	file = ptasm_create(outputs, ptfile, diag);
	if (!file) {
		free(ptfile);
		free(binfile);
		return -1;
	}
	if (trace->size && fwrite(trace->data, trace->size, 1, file) != 1)
		err = -1;
	if (ptasm_close(file, ptfile, diag) < 0)
		err = -1;

	/* The sideband files: "<prefix>-sb<i>.sb". */
	sbnames = program->nsb ? calloc(program->nsb, sizeof(*sbnames)) : NULL;
	if (program->nsb && !sbnames)
		err = ptasm_error(diag, 0, "out of memory");
	for (size_t i = 0; sbnames && !err && i < program->nsb; ++i) {
		const size_t n = strlen(prefix) + 32;
		char *path = malloc(n);

		sbnames[i] = ptasm_sb_name(prefix, i);
		if (!path || !sbnames[i]) {
			free(path);
			err = ptasm_error(diag, 0, "out of memory");
			break;
		}
		snprintf(path, n, "%s-sb%zu.sb", prefix, i);
		file = ptasm_create(outputs, path, diag);
		if (!file) {
			free(path);
			err = -1;
			break;
		}
		if (trace->sb[i].size &&
		    fwrite(trace->sb[i].data, trace->sb[i].size, 1, file) != 1)
			err = -1;
		if (ptasm_close(file, path, diag) < 0)
			err = -1;
		free(path);
	}

	for (size_t i = 0; !err && i < program->ntools; ++i)
		err = ptasm_write_tool(&program->tools[i], prefix, ptfile,
		                       program->code.present ? binfile : NULL,
		                       sbnames, program, trace, range, outputs,
		                       diag);
	for (size_t i = 0; sbnames && i < program->nsb; ++i)
		free(sbnames[i]);
	free(sbnames);
	free(ptfile);
	free(binfile);
	return err;
}

int main(int argc, char **argv)
{
	struct ptasm_options opts;
	struct ptasm_program program;
	struct ptasm_trace trace;
	struct ptasm_outputs outputs;
	struct ptasm_range range;
	struct ptasm_diag diag;
	char *text = NULL, *prefix = NULL;
	size_t len = 0;
	int status = PTASM_EXIT_OK;

	if (ptasm_parse_args(argc, argv, &opts, &status) < 0)
		return status;

	memset(&program, 0, sizeof(program));
	memset(&trace, 0, sizeof(trace));
	memset(&outputs, 0, sizeof(outputs));
	diag.file = opts.input;
	diag.out = stderr;
	diag.errors = 0;

	text = ptasm_read_file(opts.input, &len, &diag);
	if (text && ptasm_parse(text, len, &program, &diag) == 0) {
		int err = ptasm_check_tools(&program, &diag), assembled = 1;

		prefix = ptasm_prefix(&opts);
		if (!prefix) {
			err = ptasm_error(&diag, 0, "out of memory");
			assembled = 0;
		} else if (program.code.present &&
		           (ptasm_remember(&outputs, prefix, ".bin", &diag) <
		                    0 ||
		            ptasm_code_assemble(&program, text, len, prefix,
		                                &diag) < 0)) {
			assembled = 0;
		}
		/* Code labels are known once the code is assembled. */
		if (assembled && ptasm_code_resolve(&program, &diag) == 0 &&
		    !err && ptasm_encode(&program, &diag, &trace) == 0 &&
		    ptasm_encode_sideband(&program, prefix, &trace, &diag) ==
		            0 &&
		    ptasm_resolve_range(&program, &trace, &range, &diag) == 0)
			(void)ptasm_write_outputs(prefix, &program, &trace,
			                          &range, &outputs, &diag);
	}

	if (diag.errors) {
		for (size_t i = 0; i < outputs.n; ++i)
			(void)remove(outputs.names[i]);
		status = PTASM_EXIT_ERROR;
	} else if (!opts.quiet) {
		for (size_t i = 0; i < outputs.n; ++i)
			printf("%s\n", outputs.names[i]);
	}

	for (size_t i = 0; i < outputs.n; ++i)
		free(outputs.names[i]);
	free(prefix);
	ptasm_trace_free(&trace);
	ptasm_program_free(&program);
	free(text);
	return status;
}
