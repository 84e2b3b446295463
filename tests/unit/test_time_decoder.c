/* SPDX-License-Identifier: BSD-3-Clause */
/* The public time decoder (<ptdecode/ptd_time.h>): its API, and the rules
 * of the accurate estimator that need the look-ahead (interpolation onto
 * the next MTC, gaps before a TSC, more than 255 dropped MTCs, SKL168, a
 * CPUID ratio the TSCs contradict), on traces written with the encoder. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>

#include <cmocka.h>

#include "test_util.h"

#define ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))

/* A packet of a test trace; @a and @b as for the packet type. */
struct ptd_t_pkt {
	enum pt_packet_type type;
	uint64_t a, b;
};

/* Encode @n packets into @buf (of @size bytes); returns the bytes used. */
static size_t ptd_t_write(uint8_t *buf, size_t size,
                          const struct ptd_t_pkt *pkts, size_t n)
{
	struct pt_encoder *encoder = ptd_t_encoder(buf, size);
	uint64_t offset = 0;
	size_t i;

	for (i = 0; i < n; ++i) {
		struct pt_packet packet;

		memset(&packet, 0, sizeof(packet));
		packet.type = pkts[i].type;
		switch (pkts[i].type) {
		case ppt_tsc:
			packet.payload.tsc.tsc = pkts[i].a;
			break;
		case ppt_tma:
			packet.payload.tma.ctc = (uint16_t)pkts[i].a;
			packet.payload.tma.fc = (uint16_t)pkts[i].b;
			break;
		case ppt_mtc:
			packet.payload.mtc.ctc = (uint8_t)pkts[i].a;
			break;
		case ppt_cyc:
			packet.payload.cyc.value = pkts[i].a;
			break;
		case ppt_cbr:
			packet.payload.cbr.ratio = (uint8_t)pkts[i].a;
			break;
		case ppt_tnt_8:
			packet.payload.tnt.bit_size = 1;
			packet.payload.tnt.payload = 1;
			break;
		default:
			break;
		}
		assert_true(pt_enc_next(encoder, &packet) > 0);
	}
	assert_int_equal(pt_enc_get_offset(encoder, &offset), 0);
	pt_free_encoder(encoder);
	return (size_t)offset;
}

/* The trace's configuration: mtc_freq 4, 4 TSC ticks per CTC tick, nominal
 * ratio 4. */
static void ptd_t_tconfig(struct pt_config *config, uint8_t *buf, size_t size)
{
	pt_config_init(config);
	config->begin = buf;
	config->end = buf + size;
	config->mtc_freq = 4;
	config->cpuid_0x15_eax = 1;
	config->cpuid_0x15_ebx = 4;
	config->nom_freq = 4;
}

/* Decode the whole trace; the estimate at packet i goes to @tsc[i]. */
static struct ptd_time_status
ptd_t_run_trace(const struct pt_config *config,
                const struct ptd_time_config *tconfig, uint64_t *tsc, size_t n)
{
	struct ptd_time_decoder *decoder;
	struct ptd_time_status status;
	size_t i;

	decoder = ptd_time_alloc_decoder(config, tconfig);
	assert_non_null(decoder);
	assert_int_equal(ptd_time_sync_set(decoder, 0), 0);
	for (i = 0; i < n; ++i) {
		struct ptd_time_packet packet;

		assert_true(ptd_time_next(decoder, &packet, sizeof(packet)) >
		            0);
		tsc[i] = packet.tsc;
	}
	assert_int_equal(ptd_time_get_status(decoder, &status, sizeof(status)),
	                 0);
	ptd_time_free_decoder(decoder);
	return status;
}

/* --- the API ------------------------------------------------------------ */

static void test_alloc(void **state)
{
	struct ptd_time_config tconfig;
	struct pt_config config;
	uint8_t buf[4] = {0};

	(void)state;
	ptd_t_tconfig(&config, buf, sizeof(buf));
	assert_null(ptd_time_alloc_decoder(NULL, NULL));
	ptd_time_free_decoder(NULL);

	ptd_time_config_init(&tconfig);
	tconfig.mode = (enum ptd_time_mode)2;
	assert_null(ptd_time_alloc_decoder(&config, &tconfig));
	tconfig.mode = ptd_time_mode_libipt;
	tconfig.tsc_host_time = 1;
	assert_null(ptd_time_alloc_decoder(&config, &tconfig));

	/* A smaller ptd_time_config (an older caller) is fine. */
	ptd_time_config_init(&tconfig);
	tconfig.size = offsetof(struct ptd_time_config, tsc_multiplier);
	tconfig.tsc_multiplier = 5;
	ptd_time_free_decoder(ptd_time_alloc_decoder(&config, &tconfig));
	tconfig.size = 1;
	assert_null(ptd_time_alloc_decoder(&config, &tconfig));
}

static void test_api_invalid(void **state)
{
	struct ptd_time_decoder *decoder;
	struct ptd_time_packet packet;
	struct ptd_time_status status;
	struct pt_config config;
	uint8_t buf[4] = {0};
	uint64_t offset, tsc;
	uint32_t cbr;

	(void)state;
	ptd_t_tconfig(&config, buf, sizeof(buf));
	decoder = ptd_time_alloc_decoder(&config, NULL);
	assert_non_null(decoder);

	assert_int_equal(ptd_time_sync_forward(NULL), -pte_invalid);
	assert_int_equal(ptd_time_sync_set(NULL, 0), -pte_invalid);
	assert_int_equal(ptd_time_get_offset(NULL, &offset), -pte_invalid);
	assert_int_equal(ptd_time_get_offset(decoder, NULL), -pte_invalid);
	assert_int_equal(ptd_time_get_sync_offset(NULL, &offset), -pte_invalid);
	assert_int_equal(ptd_time_next(NULL, &packet, sizeof(packet)),
	                 -pte_invalid);
	assert_int_equal(ptd_time_next(decoder, NULL, sizeof(packet)),
	                 -pte_invalid);
	assert_int_equal(ptd_time_query(NULL, &tsc, NULL, NULL), -pte_invalid);
	assert_int_equal(ptd_time_query(decoder, NULL, NULL, NULL),
	                 -pte_invalid);
	assert_int_equal(ptd_time_query_cbr(NULL, &cbr), -pte_invalid);
	assert_int_equal(ptd_time_query_cbr(decoder, NULL), -pte_invalid);
	assert_int_equal(ptd_time_get_status(NULL, &status, sizeof(status)),
	                 -pte_invalid);
	assert_int_equal(ptd_time_get_status(decoder, NULL, sizeof(status)),
	                 -pte_invalid);

	/* Not synchronized. */
	assert_int_equal(ptd_time_get_offset(decoder, &offset), -pte_nosync);
	assert_int_equal(ptd_time_get_sync_offset(decoder, &offset),
	                 -pte_nosync);
	assert_int_equal(ptd_time_next(decoder, &packet, sizeof(packet)),
	                 -pte_nosync);
	/* No PSB; an offset beyond the end. */
	assert_int_equal(ptd_time_sync_forward(decoder), -pte_eos);
	assert_int_equal(ptd_time_sync_set(decoder, 5), -pte_eos);

	/* No time, no CBR yet. */
	tsc = 1;
	assert_int_equal(ptd_time_query(decoder, &tsc, NULL, NULL),
	                 -pte_no_time);
	assert_int_equal(tsc, 0);
	assert_int_equal(ptd_time_query_cbr(decoder, &cbr), -pte_no_cbr);
	ptd_time_free_decoder(decoder);
}

/* Packets come with their time; a smaller or larger packet structure works
 * as for pt_pkt_next(). */
static void test_next(void **state)
{
	static const struct ptd_t_pkt pkts[] = {
	        {ppt_psb, 0, 0}, {ppt_tsc, 0x1000, 0}, {ppt_tma, 0x10, 0},
	        {ppt_cbr, 2, 0}, {ppt_psbend, 0, 0},   {ppt_cyc, 0x10, 0},
	        {ppt_mtc, 2, 0},
	};
	struct ptd_time_packet packet, small;
	struct ptd_time_decoder *decoder;
	struct pt_config config;
	uint8_t buf[64], big[sizeof(packet) + 16];
	uint64_t offset, tsc;
	uint32_t lost_mtc, lost_cyc, cbr;
	size_t size;
	int i;

	(void)state;
	size = ptd_t_write(buf, sizeof(buf), pkts, ARRAY_SIZE(pkts));
	ptd_t_tconfig(&config, buf, size);
	decoder = ptd_time_alloc_decoder(&config, NULL);
	assert_non_null(decoder);
	assert_int_equal(ptd_time_sync_forward(decoder), 0);
	assert_int_equal(ptd_time_get_sync_offset(decoder, &offset), 0);
	assert_int_equal(offset, 0);

	for (i = 0; i < 5; ++i)
		assert_true(ptd_time_next(decoder, &packet, sizeof(packet)) >
		            0);
	assert_int_equal(packet.packet.type, ppt_psbend);
	assert_true(packet.in_psb);
	assert_true(packet.has_tsc);
	assert_true(packet.has_cbr);
	assert_int_equal(packet.cbr, 2);
	assert_true(packet.has_fcr);
	assert_int_equal(packet.fcr, 0x200);
	assert_int_equal(packet.tsc, 0x1000);

	/* The CYC lands exactly on the MTC after it: 0x20 - 0x10 CTC. */
	assert_true(ptd_time_next(decoder, &packet, sizeof(packet)) > 0);
	assert_int_equal(packet.packet.type, ppt_cyc);
	assert_false(packet.in_psb);
	assert_int_equal(packet.tsc, 0x1000 + 0x10 * 4);
	assert_int_equal(packet.tcal_error, 0);
	assert_int_equal(packet.time_error, 0);
	assert_false(packet.cyc_lost);

	/* A larger structure is zero-padded. */
	memset(big, 0xa5, sizeof(big));
	assert_int_equal(ptd_time_get_offset(decoder, &offset), 0);
	assert_int_equal(ptd_time_next(decoder, (struct ptd_time_packet *)big,
	                               sizeof(big)),
	                 2);
	memcpy(&packet, big, sizeof(packet));
	assert_int_equal(packet.packet.type, ppt_mtc);
	assert_int_equal(packet.offset, offset);
	assert_int_equal(packet.tsc, 0x1040);
	for (i = (int)sizeof(packet); i < (int)sizeof(big); ++i)
		assert_int_equal(big[i], 0);

	assert_int_equal(ptd_time_query(decoder, &tsc, &lost_mtc, &lost_cyc),
	                 0);
	assert_int_equal(tsc, 0x1040);
	assert_int_equal(lost_mtc, 0);
	assert_int_equal(lost_cyc, 0);
	assert_int_equal(ptd_time_query_cbr(decoder, &cbr), 0);
	assert_int_equal(cbr, 2);
	assert_int_equal(ptd_time_next(decoder, &packet, sizeof(packet)),
	                 -pte_eos);

	/* A smaller structure gets the leading bytes. */
	assert_int_equal(ptd_time_sync_set(decoder, 0), 0);
	memset(&small, 0xa5, sizeof(small));
	assert_true(ptd_time_next(decoder, &small,
	                          offsetof(struct ptd_time_packet, tsc)) > 0);
	assert_int_equal(small.packet.type, ppt_psb);
	assert_int_equal(small.offset, 0);
	assert_int_equal(small.tsc, UINT64_C(0xa5a5a5a5a5a5a5a5));
	ptd_time_free_decoder(decoder);
}

static void test_diag_strings(void **state)
{
	uint32_t bit;

	(void)state;
	for (bit = 1; bit <= ptd_time_diag_mtc_freq_range; bit <<= 1)
		assert_non_null(ptd_time_diag_str((enum ptd_time_diag)bit));
	assert_null(ptd_time_diag_str((enum ptd_time_diag)0));
	assert_null(ptd_time_diag_str((enum ptd_time_diag)3));
	assert_null(ptd_time_diag_str((enum ptd_time_diag)(1u << 31)));
}

/* --- the accurate estimator with look-ahead ----------------------------- */

/* CYC progress is rescaled to land on the next MTC, and never runs
 * backwards, while libipt's estimator snaps back at the MTC. */
static void test_interpolation(void **state)
{
	static const struct ptd_t_pkt pkts[] = {
	        {ppt_psb, 0, 0},    {ppt_tsc, 0xa0000, 0}, {ppt_tma, 0x18, 0x8},
	        {ppt_cbr, 2, 0},    {ppt_psbend, 0, 0},    {ppt_mtc, 2, 0},
	        {ppt_cyc, 0x30, 0}, {ppt_tnt_8, 0, 0},     {ppt_cyc, 0xd0, 0},
	        {ppt_mtc, 3, 0},    {ppt_cyc, 0x100, 0},   {ppt_mtc, 4, 0},
	};
	struct ptd_time_config tconfig;
	struct pt_config config;
	uint64_t tsc[ARRAY_SIZE(pkts)];
	uint8_t buf[128];
	size_t size, i;

	(void)state;
	size = ptd_t_write(buf, sizeof(buf), pkts, ARRAY_SIZE(pkts));
	ptd_t_tconfig(&config, buf, size);
	ptd_time_config_init(&tconfig);
	(void)ptd_t_run_trace(&config, &tconfig, tsc, ARRAY_SIZE(pkts));

	/* MTC 2 at 0xa0000 - 8 + (0x20 - 0x18) * 4; each period 0x40. */
	assert_int_equal(tsc[5], 0xa0018);
	assert_int_equal(tsc[6], 0xa0018 + 0x40 * 0x30 / 0x100);
	assert_int_equal(tsc[7], tsc[6]);
	assert_int_equal(tsc[8], 0xa0058);
	assert_int_equal(tsc[9], 0xa0058);
	assert_int_equal(tsc[10], 0xa0098);
	assert_int_equal(tsc[11], 0xa0098);
	for (i = 1; i < ARRAY_SIZE(pkts); ++i)
		assert_true(tsc[i] >= tsc[i - 1]);

	/* libipt: 0x100 cycles at 2 ticks each, then back to the MTC. */
	tconfig.mode = ptd_time_mode_libipt;
	(void)ptd_t_run_trace(&config, &tconfig, tsc, ARRAY_SIZE(pkts));
	assert_int_equal(tsc[8], 0xa0018 + 0x200);
	assert_int_equal(tsc[9], 0xa0058);
}

/* A CYC before the calibration is counted in lost_cyc as libipt counts it,
 * but placed all the same when an MTC follows. */
static void test_lost_cyc_interpolated(void **state)
{
	static const struct ptd_t_pkt pkts[] = {
	        {ppt_psb, 0, 0},    {ppt_tsc, 0xa0000, 0}, {ppt_tma, 0x18, 0x8},
	        {ppt_psbend, 0, 0}, {ppt_mtc, 2, 0},       {ppt_cyc, 0x100, 0},
	        {ppt_mtc, 3, 0},    {ppt_cyc, 0x100, 0},
	};
	struct ptd_time_decoder *decoder;
	struct ptd_time_packet packet;
	struct pt_config config;
	uint8_t buf[64];
	size_t size, i;

	(void)state;
	size = ptd_t_write(buf, sizeof(buf), pkts, ARRAY_SIZE(pkts));
	ptd_t_tconfig(&config, buf, size);
	config.nom_freq = 0;
	decoder = ptd_time_alloc_decoder(&config, NULL);
	assert_non_null(decoder);
	assert_int_equal(ptd_time_sync_set(decoder, 0), 0);
	for (i = 0; i < 6; ++i)
		assert_true(ptd_time_next(decoder, &packet, sizeof(packet)) >
		            0);
	assert_int_equal(packet.packet.type, ppt_cyc);
	assert_int_equal(packet.lost_cyc, 1);
	assert_false(packet.cyc_lost);
	assert_int_equal(packet.tsc, 0xa0058);

	/* The MTC resets the count and calibrates. */
	assert_true(ptd_time_next(decoder, &packet, sizeof(packet)) > 0);
	assert_int_equal(packet.lost_cyc, 0);
	assert_true(packet.has_fcr);

	/* No reference ahead: the ratio places it. */
	assert_true(ptd_time_next(decoder, &packet, sizeof(packet)) > 0);
	assert_int_equal(packet.lost_cyc, 0);
	assert_false(packet.cyc_lost);
	assert_int_equal(packet.tsc, 0xa0098);
	ptd_time_free_decoder(decoder);
}

/* A TSC after a deep sleep: the CYCs before it count active cycles only.
 * They are placed with the ratio, and the CYC sent with the TSC is at the
 * TSC's time. */
static void test_gap_before_tsc(void **state)
{
	static const struct ptd_t_pkt pkts[] = {
	        {ppt_psb, 0, 0},        {ppt_tsc, 0x100000, 0},
	        {ppt_tma, 0x10, 0},     {ppt_cbr, 4, 0},
	        {ppt_psbend, 0, 0},     {ppt_cyc, 0x20, 0},
	        {ppt_tnt_8, 0, 0},      {ppt_cyc, 0x20, 0},
	        {ppt_tsc, 0x200000, 0}, {ppt_tma, 0x2000, 0},
	        {ppt_cyc, 0x10, 0},
	};
	struct pt_config config;
	uint64_t tsc[ARRAY_SIZE(pkts)];
	uint8_t buf[128];
	size_t size;

	(void)state;
	size = ptd_t_write(buf, sizeof(buf), pkts, ARRAY_SIZE(pkts));
	ptd_t_tconfig(&config, buf, size);
	(void)ptd_t_run_trace(&config, NULL, tsc, ARRAY_SIZE(pkts));

	/* nom 4 / cbr 4: one tick per cycle. */
	assert_int_equal(tsc[5], 0x100020);
	assert_int_equal(tsc[7], 0x200000);
	assert_int_equal(tsc[8], 0x200000);
	assert_int_equal(tsc[10], 0x200010);
}

/* 256 MTCs in a row dropped: the payload did not change, the cycles say a
 * full wrap passed. */
static void test_mtc_full_wrap(void **state)
{
	static const struct ptd_t_pkt pkts[] = {
	        {ppt_psb, 0, 0},      {ppt_tsc, 0x100000, 0},
	        {ppt_tma, 0x10, 0},   {ppt_cbr, 4, 0},
	        {ppt_psbend, 0, 0},   {ppt_mtc, 2, 0},
	        {ppt_cyc, 0x4040, 0}, {ppt_mtc, 3, 0},
	};
	struct ptd_time_status status;
	struct pt_config config;
	uint64_t tsc[ARRAY_SIZE(pkts)];
	uint8_t buf[128];
	size_t size;

	(void)state;
	size = ptd_t_write(buf, sizeof(buf), pkts, ARRAY_SIZE(pkts));
	ptd_t_tconfig(&config, buf, size);
	status = ptd_t_run_trace(&config, NULL, tsc, ARRAY_SIZE(pkts));

	/* 0x10 -> 0x20: 0x40 ticks; then 257 periods of 0x40 ticks. */
	assert_int_equal(tsc[5], 0x100040);
	assert_int_equal(tsc[7], 0x100040 + 257 * 0x40);
	assert_int_equal(tsc[6], tsc[7]);
	assert_int_equal(status.lost_mtc, 256);
	assert_true(status.diag & ptd_time_diag_mtc_dropped);
}

/* After an OVF, the time since is unknown: CYCs count back from the next
 * MTC with the ratio, and never go below what was reported. */
static void test_ovf_backward(void **state)
{
	static const struct ptd_t_pkt pkts[] = {
	        {ppt_psb, 0, 0},   {ppt_tsc, 0x100000, 0}, {ppt_tma, 0x10, 0},
	        {ppt_cbr, 4, 0},   {ppt_psbend, 0, 0},     {ppt_mtc, 2, 0},
	        {ppt_ovf, 0, 0},   {ppt_cbr, 4, 0},        {ppt_cyc, 0x8, 0},
	        {ppt_cyc, 0x8, 0}, {ppt_mtc, 0x12, 0},
	};
	struct pt_config config;
	uint64_t tsc[ARRAY_SIZE(pkts)];
	uint8_t buf[128];
	size_t size;

	(void)state;
	size = ptd_t_write(buf, sizeof(buf), pkts, ARRAY_SIZE(pkts));
	ptd_t_tconfig(&config, buf, size);
	(void)ptd_t_run_trace(&config, NULL, tsc, ARRAY_SIZE(pkts));

	/* MTC 0x12 is 16 periods after MTC 2: 0x100040 + 0x400. */
	assert_int_equal(tsc[10], 0x100440);
	assert_int_equal(tsc[9], 0x100440);
	assert_int_equal(tsc[8], 0x100440 - 8);
}

/* TSCs that contradict the MTCs between them (the CPUID ratio is too big)
 * win: the MTC times are corrected, and the time meets the second TSC
 * without going back.  libipt's snaps back. */
static void test_ctc_ratio_correction(void **state)
{
	struct ptd_t_pkt pkts[48];
	struct ptd_time_config tconfig;
	struct ptd_time_status status;
	struct pt_config config;
	uint64_t tsc[48];
	uint8_t buf[256];
	size_t n = 0, size, i;

	(void)state;
	pkts[n++] = (struct ptd_t_pkt){ppt_psb, 0, 0};
	pkts[n++] = (struct ptd_t_pkt){ppt_tsc, 0x100000, 0};
	pkts[n++] = (struct ptd_t_pkt){ppt_tma, 0x0, 0};
	pkts[n++] = (struct ptd_t_pkt){ppt_psbend, 0, 0};
	for (i = 1; i <= 16; ++i) {
		pkts[n++] = (struct ptd_t_pkt){ppt_cyc, 0x40, 0};
		pkts[n++] = (struct ptd_t_pkt){ppt_mtc, i, 0};
	}
	/* 16 periods of 0x40 ticks by the MTCs, 0x300 by the TSCs. */
	pkts[n++] = (struct ptd_t_pkt){ppt_psb, 0, 0};
	pkts[n++] = (struct ptd_t_pkt){ppt_tsc, 0x100300, 0};
	pkts[n++] = (struct ptd_t_pkt){ppt_tma, 0x100, 0};
	pkts[n++] = (struct ptd_t_pkt){ppt_psbend, 0, 0};

	size = ptd_t_write(buf, sizeof(buf), pkts, n);
	ptd_t_tconfig(&config, buf, size);
	ptd_time_config_init(&tconfig);
	status = ptd_t_run_trace(&config, &tconfig, tsc, n);
	assert_true(status.diag & ptd_time_diag_ctc_ratio);
	/* MTC 1: 16 CTC ticks, 0x40 ticks configured, 0x30 measured. */
	assert_int_equal(tsc[5], 0x100000 + 0x30);
	assert_int_equal(tsc[n - 3], 0x100300);
	for (i = 1; i < n; ++i)
		assert_true(tsc[i] >= tsc[i - 1]);

	tconfig.mode = ptd_time_mode_libipt;
	(void)ptd_t_run_trace(&config, &tconfig, tsc, n);
	assert_int_equal(tsc[n - 5], 0x100400);
	assert_int_equal(tsc[n - 3], 0x100300);
}

/* Three stretches between TSCs, 16 MTC periods each: the first as the
 * CPUID ratio says (0x400 ticks), the others shorter (0x300).  The first
 * stretch's look-ahead finds the conversion right, so the second TSC and TMA
 * skip it; the MTCs of the second stretch keep the configured conversion,
 * and the third TSC, which they contradict, brings the look-ahead back: the
 * third stretch is corrected. */
static void test_ctc_ratio_trust(void **state)
{
	static const uint64_t tscs[] = {0x100000, 0x100400, 0x100700, 0x100a00};
	struct ptd_t_pkt pkts[4 * 4 + 3 * 32];
	struct ptd_time_status status;
	struct pt_config config;
	uint64_t tsc[ARRAY_SIZE(pkts)];
	size_t mtc[3 * 16];
	uint8_t buf[1024];
	size_t n = 0, size, i, s;

	(void)state;
	for (s = 0; s < ARRAY_SIZE(tscs); ++s) {
		pkts[n++] = (struct ptd_t_pkt){ppt_psb, 0, 0};
		pkts[n++] = (struct ptd_t_pkt){ppt_tsc, tscs[s], 0};
		pkts[n++] = (struct ptd_t_pkt){ppt_tma, s * 0x100, 0};
		pkts[n++] = (struct ptd_t_pkt){ppt_psbend, 0, 0};
		if (s + 1 == ARRAY_SIZE(tscs))
			break;
		for (i = 1; i <= 16; ++i) {
			pkts[n++] = (struct ptd_t_pkt){ppt_cyc, 0x40, 0};
			mtc[s * 16 + i - 1] = n;
			pkts[n++] = (struct ptd_t_pkt){ppt_mtc, s * 16 + i, 0};
		}
	}
	assert_int_equal(n, ARRAY_SIZE(pkts));

	size = ptd_t_write(buf, sizeof(buf), pkts, n);
	ptd_t_tconfig(&config, buf, size);
	status = ptd_t_run_trace(&config, NULL, tsc, n);
	assert_true(status.diag & ptd_time_diag_ctc_ratio);

	/* The first stretch as configured: 0x40 ticks per MTC period. */
	for (i = 0; i < 16; ++i)
		assert_int_equal(tsc[mtc[i]], 0x100000 + (i + 1) * 0x40);
	/* The second, trusted, too: its MTCs run ahead of the third TSC. */
	for (i = 0; i < 16; ++i)
		assert_int_equal(tsc[mtc[16 + i]], 0x100400 + (i + 1) * 0x40);
	/* The third is corrected to meet the fourth TSC, 0x30 per period,
	 * and waits at the second stretch's end until it catches up (the
	 * time does not go back). */
	for (i = 0; i < 16; ++i) {
		uint64_t want = 0x100700 + (i + 1) * 0x30;

		assert_int_equal(tsc[mtc[32 + i]],
		                 want > 0x100800 ? want : 0x100800);
	}
	assert_int_equal(tsc[n - 3], 0x100a00);
	for (i = 1; i < n; ++i)
		assert_true(tsc[i] >= tsc[i - 1]);
}

/* SKL168: with the erratum, a segment that crosses a PSB is placed with the
 * ratio (the cycles before the PSB may be short by a dropped CYC) rather
 * than rescaled. */
static void test_skl168(void **state)
{
	static const struct ptd_t_pkt pkts[] = {
	        {ppt_psb, 0, 0},    {ppt_tsc, 0x100000, 0}, {ppt_tma, 0x10, 0},
	        {ppt_cbr, 4, 0},    {ppt_psbend, 0, 0},     {ppt_mtc, 2, 0},
	        {ppt_cyc, 0x10, 0}, {ppt_psb, 0, 0},        {ppt_psbend, 0, 0},
	        {ppt_cyc, 0x10, 0}, {ppt_mtc, 3, 0},
	};
	struct pt_config config;
	uint64_t tsc[ARRAY_SIZE(pkts)];
	uint8_t buf[128];
	size_t size;

	(void)state;
	size = ptd_t_write(buf, sizeof(buf), pkts, ARRAY_SIZE(pkts));
	ptd_t_tconfig(&config, buf, size);
	(void)ptd_t_run_trace(&config, NULL, tsc, ARRAY_SIZE(pkts));
	/* Without the erratum: rescaled, 0x20 cycles over 0x40 ticks. */
	assert_int_equal(tsc[6], 0x100040 + 0x20);
	assert_int_equal(tsc[9], 0x100080);

	/* With it: one tick per cycle (nom 4 / cbr 4); the CYC sent with the
	 * MTC is at the MTC's time all the same. */
	config.errata.skl168 = 1;
	(void)ptd_t_run_trace(&config, NULL, tsc, ARRAY_SIZE(pkts));
	assert_int_equal(tsc[6], 0x100040 + 0x10);
	assert_int_equal(tsc[9], 0x100080);
	assert_int_equal(tsc[10], 0x100080);
}

int main(int argc, char **argv)
{
	const struct CMUnitTest tests[] = {
	        cmocka_unit_test(test_alloc),
	        cmocka_unit_test(test_api_invalid),
	        cmocka_unit_test(test_next),
	        cmocka_unit_test(test_diag_strings),
	        cmocka_unit_test(test_interpolation),
	        cmocka_unit_test(test_lost_cyc_interpolated),
	        cmocka_unit_test(test_gap_before_tsc),
	        cmocka_unit_test(test_mtc_full_wrap),
	        cmocka_unit_test(test_ovf_backward),
	        cmocka_unit_test(test_ctc_ratio_correction),
	        cmocka_unit_test(test_ctc_ratio_trust),
	        cmocka_unit_test(test_skl168),
	};

	ptd_t_filters(argc, argv);
	return cmocka_run_group_tests(tests, NULL, NULL);
}
