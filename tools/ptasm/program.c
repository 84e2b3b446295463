/* SPDX-License-Identifier: BSD-3-Clause */
/* ptasm: ownership and look-up helpers of struct ptasm_program. */
#include "program.h"

#include "diag.h"

#include <stdlib.h>
#include <string.h>

static void ptasm_tool_free(struct ptasm_tool *tool)
{
	free(tool->name);
	for (size_t i = 0; i < tool->nargs; ++i)
		free(tool->args[i]);
	free(tool->args);
	for (size_t i = 0; i < tool->nlines; ++i)
		free(tool->lines[i].text);
	free(tool->lines);
}

void ptasm_program_free(struct ptasm_program *program)
{
	for (size_t i = 0; i < program->nstmts; ++i) {
		free(program->stmts[i].bytes);
		free(program->stmts[i].ip_label);
	}
	free(program->stmts);
	for (size_t i = 0; i < program->nlabels; ++i)
		free(program->labels[i].name);
	free(program->labels);
	for (size_t i = 0; i < program->ntools; ++i)
		ptasm_tool_free(&program->tools[i]);
	free(program->tools);
	free(program->cpu);
	free(program->range_from.label);
	free(program->range_to.label);
	free(program->code.skip);
	for (size_t i = 0; i < program->code.nsymbols; ++i)
		free(program->code.symbols[i].name);
	free(program->code.symbols);
	for (size_t i = 0; i < program->nsb; ++i) {
		for (size_t k = 0; k < program->sb[i].nrecs; ++k)
			free(program->sb[i].recs[k].str);
		free(program->sb[i].recs);
	}
	free(program->sb);
	memset(program, 0, sizeof(*program));
}

static int ptasm_name_is(const char *name, const char *s, size_t len)
{
	return strlen(name) == len && memcmp(name, s, len) == 0;
}

struct ptasm_tool *ptasm_program_tool(struct ptasm_program *program,
                                      const char *name, size_t len, int create)
{
	struct ptasm_tool *tool;
	void *tools;

	for (size_t i = 0; i < program->ntools; ++i) {
		if (ptasm_name_is(program->tools[i].name, name, len))
			return &program->tools[i];
	}
	if (!create)
		return NULL;

	tools = program->tools;
	if (ptasm_grow(&tools, &program->tools_cap, program->ntools + 1,
	               sizeof(*program->tools)) < 0)
		return NULL;
	program->tools = tools;
	tool = &program->tools[program->ntools];
	memset(tool, 0, sizeof(*tool));
	tool->name = ptasm_strndup(name, len);
	if (!tool->name)
		return NULL;
	program->ntools += 1;
	return tool;
}

const struct ptasm_label *
ptasm_program_label(const struct ptasm_program *program, const char *name,
                    size_t len)
{
	for (size_t i = 0; i < program->nlabels; ++i) {
		if (ptasm_name_is(program->labels[i].name, name, len))
			return &program->labels[i];
	}
	return NULL;
}

const struct ptasm_symbol *
ptasm_program_symbol(const struct ptasm_program *program, const char *name,
                     size_t len)
{
	for (size_t i = 0; i < program->code.nsymbols; ++i) {
		if (ptasm_name_is(program->code.symbols[i].name, name, len))
			return &program->code.symbols[i];
	}
	return NULL;
}
