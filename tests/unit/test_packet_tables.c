/* SPDX-License-Identifier: BSD-3-Clause */
/* The opcode classification tables of the packet decoder (pkt_tables.h).
 *
 * The expected class of every byte is derived here from the opcode patterns
 * of the Intel SDM (Vol. 3C, "Packet Definitions"), written independently of
 * scripts/gen_pkt_tables.py: a list of (value, mask) patterns of which at
 * most one may match each byte.  Then every opcode is decoded to check that
 * the decoder acts on the class. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>

#include <cmocka.h>

#include "packet/pkt_format.h"
#include "packet/pkt_tables.h"
#include "test_util.h"

struct opc_pattern {
	uint8_t value;
	uint8_t mask;
	uint8_t cls;
	const char *name;
};

/* First bytes.  TNT-8 (bit 0 clear) is handled separately: it is every even
 * byte except the two that are PAD and the extension escape. */
static const struct opc_pattern first_patterns[] = {
        {0x00, 0xff, PKC_PAD, "pad"},
        {0x02, 0xff, PKC_EXT, "ext"},
        {0x03, 0x03, PKC_CYC, "cyc"},
        {0x0d, 0x1f, PKC_TIP, "tip"},
        {0x11, 0x1f, PKC_TIP_PGE, "tip.pge"},
        {0x01, 0x1f, PKC_TIP_PGD, "tip.pgd"},
        {0x1d, 0x1f, PKC_FUP, "fup"},
        {0x99, 0xff, PKC_MODE, "mode"},
        {0x19, 0xff, PKC_TSC, "tsc"},
        {0x59, 0xff, PKC_MTC, "mtc"},
        {0xd9, 0xff, PKC_TRIG, "trig"},
};

/* Second bytes after 0x02. */
static const struct opc_pattern ext_patterns[] = {
        {0x82, 0xff, PKX_PSB, "psb"},       {0xa3, 0xff, PKX_TNT64, "tnt.64"},
        {0x43, 0xff, PKX_PIP, "pip"},       {0xf3, 0xff, PKX_OVF, "ovf"},
        {0x23, 0xff, PKX_PSBEND, "psbend"}, {0x03, 0xff, PKX_CBR, "cbr"},
        {0x73, 0xff, PKX_TMA, "tma"},       {0x83, 0xff, PKX_STOP, "stop"},
        {0xc8, 0xff, PKX_VMCS, "vmcs"},     {0xc3, 0xff, PKX_EXT2, "ext2"},
        {0x62, 0x7f, PKX_EXSTOP, "exstop"}, {0xc2, 0xff, PKX_MWAIT, "mwait"},
        {0x22, 0xff, PKX_PWRE, "pwre"},     {0xa2, 0xff, PKX_PWRX, "pwrx"},
        {0x12, 0x1f, PKX_PTW, "ptw"},       {0x13, 0xff, PKX_CFE, "cfe"},
        {0x53, 0xff, PKX_EVD, "evd"},       {0x63, 0xff, PKX_BBP, "bbp"},
        {0x33, 0x7f, PKX_BEP, "bep"},
};

/* Return the class that the patterns give @byte; fail if several match. */
static uint8_t expected_class(const struct opc_pattern *patterns, size_t n,
                              unsigned byte, uint8_t unknown)
{
	uint8_t cls = unknown;
	const char *match = NULL;
	size_t i;

	for (i = 0; i < n; ++i) {
		if ((byte & patterns[i].mask) != patterns[i].value)
			continue;
		if (match)
			fail_msg("byte 0x%02x matches both %s and %s", byte,
			         match, patterns[i].name);
		match = patterns[i].name;
		cls = patterns[i].cls;
	}
	return cls;
}

static uint8_t expected_first(unsigned byte)
{
	if ((byte & 1) == 0 && byte != 0x00 && byte != 0x02)
		return PKC_TNT8;
	return expected_class(first_patterns,
	                      sizeof(first_patterns) /
	                              sizeof(first_patterns[0]),
	                      byte, PKC_UNKNOWN);
}

static uint8_t expected_ext(unsigned byte)
{
	return expected_class(ext_patterns,
	                      sizeof(ext_patterns) / sizeof(ext_patterns[0]),
	                      byte, PKX_UNKNOWN);
}

static void test_first_byte_table(void **state)
{
	unsigned counts[PKC_TRIG + 1] = {0};
	unsigned b;

	(void)state;
	assert_int_equal(sizeof(ptd_pkt_class), 256);
	for (b = 0; b < 256; ++b) {
		uint8_t want = expected_first(b);

		if (ptd_pkt_class[b] != want)
			fail_msg("ptd_pkt_class[0x%02x] = %u, expected %u", b,
			         ptd_pkt_class[b], want);
		assert_true(ptd_pkt_class[b] <= PKC_TRIG);
		counts[ptd_pkt_class[b]]++;
	}

	/* The population of each class, counted by hand from the SDM. */
	assert_int_equal(counts[PKC_PAD], 1);
	assert_int_equal(counts[PKC_EXT], 1);
	assert_int_equal(counts[PKC_TNT8], 126);
	assert_int_equal(counts[PKC_CYC], 64);
	assert_int_equal(counts[PKC_TIP], 8);
	assert_int_equal(counts[PKC_TIP_PGE], 8);
	assert_int_equal(counts[PKC_TIP_PGD], 8);
	assert_int_equal(counts[PKC_FUP], 8);
	assert_int_equal(counts[PKC_MODE], 1);
	assert_int_equal(counts[PKC_TSC], 1);
	assert_int_equal(counts[PKC_MTC], 1);
	assert_int_equal(counts[PKC_TRIG], 1);
	assert_int_equal(counts[PKC_UNKNOWN], 28);
}

static void test_ext_byte_table(void **state)
{
	unsigned counts[PKX_BEP + 1] = {0};
	unsigned b;

	(void)state;
	assert_int_equal(sizeof(ptd_pkt_ext_class), 256);
	for (b = 0; b < 256; ++b) {
		uint8_t want = expected_ext(b);

		if (ptd_pkt_ext_class[b] != want)
			fail_msg("ptd_pkt_ext_class[0x%02x] = %u, expected %u",
			         b, ptd_pkt_ext_class[b], want);
		assert_true(ptd_pkt_ext_class[b] <= PKX_BEP);
		counts[ptd_pkt_ext_class[b]]++;
	}
	assert_int_equal(counts[PKX_PTW], 8);
	assert_int_equal(counts[PKX_EXSTOP], 2);
	assert_int_equal(counts[PKX_BEP], 2);
	assert_int_equal(counts[PKX_UNKNOWN], 256 - 8 - 2 - 2 - 16);
}

/* The opcode constants of pkt_format.h are the ones the tables use. */
static void test_opcode_constants(void **state)
{
	(void)state;
	assert_int_equal(ptd_pkt_class[PTD_OPC_PAD], PKC_PAD);
	assert_int_equal(ptd_pkt_class[PTD_OPC_EXT], PKC_EXT);
	assert_int_equal(ptd_pkt_class[PTD_OPC_TIP], PKC_TIP);
	assert_int_equal(ptd_pkt_class[PTD_OPC_TIP_PGE], PKC_TIP_PGE);
	assert_int_equal(ptd_pkt_class[PTD_OPC_TIP_PGD], PKC_TIP_PGD);
	assert_int_equal(ptd_pkt_class[PTD_OPC_FUP], PKC_FUP);
	assert_int_equal(ptd_pkt_class[PTD_OPC_MODE], PKC_MODE);
	assert_int_equal(ptd_pkt_class[PTD_OPC_TSC], PKC_TSC);
	assert_int_equal(ptd_pkt_class[PTD_OPC_MTC], PKC_MTC);
	assert_int_equal(ptd_pkt_class[PTD_OPC_CYC], PKC_CYC);
	assert_int_equal(ptd_pkt_class[PTD_OPC_TRIG], PKC_TRIG);
	assert_int_equal(ptd_pkt_ext_class[PTD_EXT_PSB], PKX_PSB);
	assert_int_equal(ptd_pkt_ext_class[PTD_EXT_TNT64], PKX_TNT64);
	assert_int_equal(ptd_pkt_ext_class[PTD_EXT_PIP], PKX_PIP);
	assert_int_equal(ptd_pkt_ext_class[PTD_EXT_OVF], PKX_OVF);
	assert_int_equal(ptd_pkt_ext_class[PTD_EXT_PSBEND], PKX_PSBEND);
	assert_int_equal(ptd_pkt_ext_class[PTD_EXT_CBR], PKX_CBR);
	assert_int_equal(ptd_pkt_ext_class[PTD_EXT_TMA], PKX_TMA);
	assert_int_equal(ptd_pkt_ext_class[PTD_EXT_STOP], PKX_STOP);
	assert_int_equal(ptd_pkt_ext_class[PTD_EXT_VMCS], PKX_VMCS);
	assert_int_equal(ptd_pkt_ext_class[PTD_EXT_EXT2], PKX_EXT2);
	assert_int_equal(ptd_pkt_ext_class[PTD_EXT_EXSTOP], PKX_EXSTOP);
	assert_int_equal(ptd_pkt_ext_class[PTD_EXT_EXSTOP_IP], PKX_EXSTOP);
	assert_int_equal(ptd_pkt_ext_class[PTD_EXT_MWAIT], PKX_MWAIT);
	assert_int_equal(ptd_pkt_ext_class[PTD_EXT_PWRE], PKX_PWRE);
	assert_int_equal(ptd_pkt_ext_class[PTD_EXT_PWRX], PKX_PWRX);
	assert_int_equal(ptd_pkt_ext_class[PTD_EXT_PTW], PKX_PTW);
	assert_int_equal(ptd_pkt_ext_class[PTD_EXT_CFE], PKX_CFE);
	assert_int_equal(ptd_pkt_ext_class[PTD_EXT_EVD], PKX_EVD);
	assert_int_equal(ptd_pkt_ext_class[PTD_EXT_BBP], PKX_BBP);
	assert_int_equal(ptd_pkt_ext_class[PTD_EXT_BEP], PKX_BEP);
	assert_int_equal(ptd_pkt_ext_class[PTD_EXT_BEP_IP], PKX_BEP);
	/* BIP (only inside a block) aliases TNT-8 bytes: opcode xxxxx100b. */
	assert_int_equal(PTD_OPC_BIP & PTD_OPM_BIP, PTD_OPC_BIP);
	assert_int_equal(PTD_OPC_BIP, 0x04);
	assert_int_equal(PTD_OPM_BIP, 0x07);
}

/* Decode @bytes (16 bytes, the rest of the packet zero) and return the
 * result; the packet goes to @packet. */
static int decode16(const uint8_t *bytes, struct pt_packet *packet)
{
	uint8_t *buf = ptd_t_dup(bytes, 16);
	struct pt_packet_decoder *decoder = ptd_t_decoder(buf, 16, NULL);
	int errcode;

	assert_int_equal(pt_pkt_sync_set(decoder, 0), 0);
	errcode = pt_pkt_next(decoder, packet, sizeof(*packet));
	pt_pkt_free_decoder(decoder);
	free(buf);
	return errcode;
}

/* Every first byte, followed by zeros, decodes as its class says. */
static void test_first_byte_decodes(void **state)
{
	static const enum pt_packet_type types[] = {
	        [PKC_PAD] = ppt_pad,         [PKC_TNT8] = ppt_tnt_8,
	        [PKC_TIP] = ppt_tip,         [PKC_TIP_PGE] = ppt_tip_pge,
	        [PKC_TIP_PGD] = ppt_tip_pgd, [PKC_FUP] = ppt_fup,
	        [PKC_MODE] = ppt_mode,       [PKC_TSC] = ppt_tsc,
	        [PKC_MTC] = ppt_mtc,         [PKC_CYC] = ppt_cyc,
	        [PKC_TRIG] = ppt_trig,
	};
	unsigned b;

	(void)state;
	for (b = 0; b < 256; ++b) {
		uint8_t bytes[16] = {0};
		struct pt_packet packet;
		uint8_t cls = expected_first(b);
		int errcode;

		bytes[0] = (uint8_t)b;
		errcode = decode16(bytes, &packet);
		if (cls == PKC_UNKNOWN) {
			assert_int_equal(errcode, -pte_bad_opc);
			continue;
		}
		if (cls == PKC_EXT) {
			/* 02 00 is not an extension opcode. */
			assert_int_equal(errcode, -pte_bad_opc);
			continue;
		}
		if (cls == PKC_TIP || cls == PKC_TIP_PGE ||
		    cls == PKC_TIP_PGD || cls == PKC_FUP) {
			unsigned ipc = b >> 5;

			if (ipc == 5 || ipc == 7) {
				assert_int_equal(errcode, -pte_bad_packet);
				continue;
			}
		}
		if (errcode <= 0)
			fail_msg("opcode 0x%02x: %d", b, errcode);
		assert_int_equal(packet.type, types[cls]);
		assert_int_equal(packet.size, errcode);
	}
}

/* Every packet image of the batch decoder (struct ptd_pkt_image), computed
 * as the batch decoder does, is the packet that pt_pkt_next() decodes from
 * the same bytes, for a few payloads.  CYC images are for the two-byte CYC
 * (the second byte's bit 0 clear). */
static void test_image_table(void **state)
{
	static const uint64_t payloads[] = {0, 0x0123456789abcdefull,
	                                    0xfedcba9876543210ull, ~0ull};
	unsigned b, i, lane;

	(void)state;
	for (b = 0; b < 256; ++b) {
		const struct ptd_pkt_image *img = &ptd_pkt_image[b];

		if (!img->c[0]) {
			/* The general decoder's opcodes: no fast entry. */
			assert_int_equal(ptd_pkt_fast[b].size, 0);
			continue;
		}
		for (i = 0; i < sizeof(payloads) / sizeof(payloads[0]); ++i) {
			uint8_t bytes[16] = {0};
			struct pt_packet packet, image;
			uint64_t w = payloads[i], v[3];
			const char *diff;
			int errcode;

			if ((b & 7) == 7)
				w &= ~1ull; /* a two-byte CYC */
			bytes[0] = (uint8_t)b;
			memcpy(&bytes[1], &w, sizeof(w));
			for (lane = 0; lane < 3; ++lane)
				v[lane] = img->c[lane] |
				          ((w & img->m[lane]) << img->c[3]);
			memcpy(&image, v, sizeof(image));
			errcode = decode16(bytes, &packet);
			if (errcode <= 0)
				fail_msg("opcode 0x%02x: %d", b, errcode);
			assert_int_equal(image.type, packet.type);
			assert_int_equal(image.size, packet.size);
			diff = ptd_pkt_diff(&image, &packet);
			if (diff)
				fail_msg("opcode 0x%02x, payload %u: %s", b, i,
				         diff);
		}
	}
}

/* Every second byte after 0x02, followed by zeros, decodes as its class
 * says (zero payloads that are not valid are -pte_bad_packet). */
static void test_ext_byte_decodes(void **state)
{
	static const enum pt_packet_type types[] = {
	        [PKX_PSB] = ppt_psb,       [PKX_TNT64] = ppt_tnt_64,
	        [PKX_PIP] = ppt_pip,       [PKX_OVF] = ppt_ovf,
	        [PKX_PSBEND] = ppt_psbend, [PKX_CBR] = ppt_cbr,
	        [PKX_TMA] = ppt_tma,       [PKX_STOP] = ppt_stop,
	        [PKX_VMCS] = ppt_vmcs,     [PKX_EXT2] = ppt_mnt,
	        [PKX_EXSTOP] = ppt_exstop, [PKX_MWAIT] = ppt_mwait,
	        [PKX_PWRE] = ppt_pwre,     [PKX_PWRX] = ppt_pwrx,
	        [PKX_PTW] = ppt_ptw,       [PKX_CFE] = ppt_cfe,
	        [PKX_EVD] = ppt_evd,       [PKX_BBP] = ppt_bbp,
	        [PKX_BEP] = ppt_bep,
	};
	unsigned b;

	(void)state;
	for (b = 0; b < 256; ++b) {
		uint8_t bytes[16] = {0x02};
		struct pt_packet packet;
		uint8_t cls = expected_ext(b);
		int errcode;

		bytes[1] = (uint8_t)b;
		errcode = decode16(bytes, &packet);
		switch (cls) {
		case PKX_UNKNOWN:
			assert_int_equal(errcode, -pte_bad_opc);
			continue;
		case PKX_PSB:   /* 02 82 00 ... is a broken PSB */
		case PKX_TNT64: /* no stop bit */
			assert_int_equal(errcode, -pte_bad_packet);
			continue;
		case PKX_EXT2: /* 02 c3 00 is not MNT */
			assert_int_equal(errcode, -pte_bad_opc);
			bytes[2] = PTD_EXT2_MNT;
			errcode = decode16(bytes, &packet);
			break;
		case PKX_PTW:
			if (((b >> 5) & 3) > 1) {
				assert_int_equal(errcode, -pte_bad_packet);
				continue;
			}
			break;
		default:
			break;
		}
		if (errcode <= 0)
			fail_msg("02 %02x: %d", b, errcode);
		assert_int_equal(packet.type, types[cls]);
		assert_int_equal(packet.size, errcode);
	}
}

int main(int argc, char **argv)
{
	const struct CMUnitTest tests[] = {
	        cmocka_unit_test(test_first_byte_table),
	        cmocka_unit_test(test_ext_byte_table),
	        cmocka_unit_test(test_opcode_constants),
	        cmocka_unit_test(test_first_byte_decodes),
	        cmocka_unit_test(test_image_table),
	        cmocka_unit_test(test_ext_byte_decodes),
	};

	ptd_t_filters(argc, argv);
	return cmocka_run_group_tests(tests, NULL, NULL);
}
