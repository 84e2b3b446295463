/* SPDX-License-Identifier: BSD-3-Clause */
/* A generator of random, valid Intel PT packet streams; see pktgen.h. */
#include "pktgen.h"

#include <string.h>

static uint64_t ptd_rotl(uint64_t x, int k)
{
	return (x << k) | (x >> (64 - k));
}

void ptd_rng_seed(struct ptd_rng *rng, uint64_t seed)
{
	/* Expand the seed with splitmix64, as the xoshiro authors advise. */
	for (int i = 0; i < 4; ++i) {
		uint64_t z = (seed += UINT64_C(0x9e3779b97f4a7c15));

		z = (z ^ (z >> 30)) * UINT64_C(0xbf58476d1ce4e5b9);
		z = (z ^ (z >> 27)) * UINT64_C(0x94d049bb133111eb);
		rng->s[i] = z ^ (z >> 31);
	}
}

uint64_t ptd_rng_next(struct ptd_rng *rng)
{
	uint64_t *s = rng->s;
	uint64_t result = ptd_rotl(s[1] * 5, 7) * 9;
	uint64_t t = s[1] << 17;

	s[2] ^= s[0];
	s[3] ^= s[1];
	s[1] ^= s[2];
	s[0] ^= s[3];
	s[2] ^= t;
	s[3] = ptd_rotl(s[3], 45);
	return result;
}

uint64_t ptd_rng_below(struct ptd_rng *rng, uint64_t n)
{
	/* The modulo bias (below 2^-40 for the ranges used here) does not
	 * matter for test data. */
	return ptd_rng_next(rng) % n;
}

static int ptd_rng_bit(struct ptd_rng *rng)
{
	return (int)(ptd_rng_next(rng) >> 63);
}

/* A random value of @bits bits (1..64) that is often a boundary value. */
static uint64_t ptd_gen_bits(struct ptd_rng *rng, unsigned bits)
{
	uint64_t mask = bits >= 64 ? UINT64_MAX : (UINT64_C(1) << bits) - 1;
	uint64_t r = ptd_rng_next(rng);

	switch (r & 15) {
	case 0:
		return 0;
	case 1:
		return mask;
	case 2:
		return 1;
	case 3:
		return mask >> 1;
	case 4:
		return (mask >> 1) + 1;
	case 5:
		/* The PSB byte pattern, in either phase, little-endian: a
		 * payload ending in 02 82 right before a PSB makes a longer
		 * run of the pattern that synchronization must not be fooled
		 * by. */
		return ((r & 16) ? UINT64_C(0x8202820282028202)
		                 : UINT64_C(0x0282028202820282)) &
		       mask;
	case 6:
		/* A random number of significant bits. */
		return ptd_rng_next(rng) >> (63 - ptd_rng_below(rng, bits)) &
		       mask;
	default:
		return ptd_rng_next(rng) & mask;
	}
}

void ptd_gen_init(struct ptd_gen *gen, uint64_t seed,
                  enum ptd_gen_profile profile)
{
	memset(gen, 0, sizeof(*gen));
	ptd_rng_seed(&gen->rng, seed);
	gen->profile = profile;
	gen->until_psb = ptd_rng_below(&gen->rng, 21);
	gen->psbplus_left = -1;
	gen->last_ip = UINT64_C(0x00007f0012345000);
}

/* The payload bits of each IP compression. */
static unsigned ptd_ipc_bits(enum pt_ip_compression ipc)
{
	switch (ipc) {
	case pt_ipc_suppressed:
		return 0;
	case pt_ipc_update_16:
		return 16;
	case pt_ipc_update_32:
		return 32;
	case pt_ipc_sext_48:
	case pt_ipc_update_48:
		return 48;
	case pt_ipc_full:
		return 64;
	}
	return 0;
}

static void ptd_gen_ip(struct ptd_gen *gen, struct pt_packet *pkt,
                       enum pt_packet_type type)
{
	static const enum pt_ip_compression ipcs[] = {
	        pt_ipc_suppressed, pt_ipc_update_16, pt_ipc_update_32,
	        pt_ipc_sext_48,    pt_ipc_update_48, pt_ipc_full};
	enum pt_ip_compression ipc = ipcs[ptd_rng_below(&gen->rng, 6)];
	unsigned bits = ptd_ipc_bits(ipc);

	pkt->type = type;
	pkt->payload.ip.ipc = ipc;
	pkt->payload.ip.ip = bits ? ptd_gen_bits(&gen->rng, bits) : 0;
}

static void ptd_gen_mode(struct ptd_gen *gen, struct pt_packet *pkt)
{
	pkt->type = ppt_mode;
	if (ptd_rng_bit(&gen->rng)) {
		pkt->payload.mode.leaf = pt_mol_exec;
		pkt->payload.mode.bits.exec.csl =
		        (uint32_t)ptd_rng_bit(&gen->rng);
		pkt->payload.mode.bits.exec.csd =
		        (uint32_t)ptd_rng_bit(&gen->rng);
	} else {
		pkt->payload.mode.leaf = pt_mol_tsx;
		pkt->payload.mode.bits.tsx.intx =
		        (uint32_t)ptd_rng_bit(&gen->rng);
		pkt->payload.mode.bits.tsx.abrt =
		        (uint32_t)ptd_rng_bit(&gen->rng);
	}
}

/* The ordinary packet types of the uniform profile (PSB and PSBEND come
 * from the segment logic). */
enum ptd_gen_kind {
	GK_PAD,
	GK_FUP,
	GK_TIP,
	GK_TIP_PGE,
	GK_TIP_PGD,
	GK_TNT8,
	GK_TNT64,
	GK_MODE,
	GK_PIP,
	GK_VMCS,
	GK_CBR,
	GK_TSC,
	GK_TMA,
	GK_MTC,
	GK_CYC,
	GK_STOP,
	GK_OVF,
	GK_MNT,
	GK_EXSTOP,
	GK_MWAIT,
	GK_PWRE,
	GK_PWRX,
	GK_PTW,
	GK_COUNT
};

static void ptd_gen_kind(struct ptd_gen *gen, struct pt_packet *pkt,
                         enum ptd_gen_kind kind)
{
	struct ptd_rng *rng = &gen->rng;

	switch (kind) {
	case GK_PAD:
		pkt->type = ppt_pad;
		break;
	case GK_FUP:
		ptd_gen_ip(gen, pkt, ppt_fup);
		break;
	case GK_TIP:
		ptd_gen_ip(gen, pkt, ppt_tip);
		break;
	case GK_TIP_PGE:
		ptd_gen_ip(gen, pkt, ppt_tip_pge);
		break;
	case GK_TIP_PGD:
		ptd_gen_ip(gen, pkt, ppt_tip_pgd);
		break;
	case GK_TNT8:
	case GK_TNT64: {
		unsigned max = kind == GK_TNT8 ? 6 : 47;
		unsigned bits = 1 + (unsigned)ptd_rng_below(rng, max);

		/* Favour the longest TNTs a little: they are the common ones
		 * and the boundary. */
		if (ptd_rng_below(rng, 4) == 0)
			bits = max;
		pkt->type = kind == GK_TNT8 ? ppt_tnt_8 : ppt_tnt_64;
		pkt->payload.tnt.bit_size = (uint8_t)bits;
		pkt->payload.tnt.payload = ptd_gen_bits(rng, bits);
		break;
	}
	case GK_MODE:
		ptd_gen_mode(gen, pkt);
		break;
	case GK_PIP:
		pkt->type = ppt_pip;
		pkt->payload.pip.cr3 = ptd_gen_bits(rng, 47) << 5;
		pkt->payload.pip.nr = (uint32_t)ptd_rng_bit(rng);
		break;
	case GK_VMCS:
		pkt->type = ppt_vmcs;
		pkt->payload.vmcs.base = ptd_gen_bits(rng, 40) << 12;
		break;
	case GK_CBR:
		pkt->type = ppt_cbr;
		pkt->payload.cbr.ratio = (uint8_t)ptd_gen_bits(rng, 8);
		break;
	case GK_TSC:
		pkt->type = ppt_tsc;
		pkt->payload.tsc.tsc = ptd_gen_bits(rng, 56);
		break;
	case GK_TMA:
		pkt->type = ppt_tma;
		pkt->payload.tma.ctc = (uint16_t)ptd_gen_bits(rng, 16);
		pkt->payload.tma.fc = (uint16_t)ptd_gen_bits(rng, 9);
		break;
	case GK_MTC:
		pkt->type = ppt_mtc;
		pkt->payload.mtc.ctc = (uint8_t)ptd_gen_bits(rng, 8);
		break;
	case GK_CYC:
		/* 5 bits in the first byte, 7 in each of up to 8 more: the
		 * longest CYC both decoders take has 61 payload bits.  Pick
		 * the length uniformly so that every CYC size is common. */
		pkt->type = ppt_cyc;
		pkt->payload.cyc.value =
		        ptd_gen_bits(rng, 1 + (unsigned)ptd_rng_below(rng, 61));
		break;
	case GK_STOP:
		pkt->type = ppt_stop;
		break;
	case GK_OVF:
		pkt->type = ppt_ovf;
		break;
	case GK_MNT:
		pkt->type = ppt_mnt;
		pkt->payload.mnt.payload = ptd_gen_bits(rng, 64);
		break;
	case GK_EXSTOP:
		pkt->type = ppt_exstop;
		pkt->payload.exstop.ip = (uint32_t)ptd_rng_bit(rng);
		break;
	case GK_MWAIT:
		pkt->type = ppt_mwait;
		pkt->payload.mwait.hints = (uint32_t)ptd_gen_bits(rng, 32);
		pkt->payload.mwait.ext = (uint32_t)ptd_gen_bits(rng, 32);
		break;
	case GK_PWRE:
		pkt->type = ppt_pwre;
		pkt->payload.pwre.state = (uint8_t)ptd_gen_bits(rng, 4);
		pkt->payload.pwre.sub_state = (uint8_t)ptd_gen_bits(rng, 4);
		pkt->payload.pwre.hw = (uint32_t)ptd_rng_bit(rng);
		break;
	case GK_PWRX:
		pkt->type = ppt_pwrx;
		pkt->payload.pwrx.last = (uint8_t)ptd_gen_bits(rng, 4);
		pkt->payload.pwrx.deepest = (uint8_t)ptd_gen_bits(rng, 4);
		pkt->payload.pwrx.interrupt = (uint32_t)ptd_rng_bit(rng);
		pkt->payload.pwrx.store = (uint32_t)ptd_rng_bit(rng);
		pkt->payload.pwrx.autonomous = (uint32_t)ptd_rng_bit(rng);
		break;
	case GK_PTW:
		pkt->type = ppt_ptw;
		pkt->payload.ptw.plc = (uint8_t)ptd_rng_bit(rng);
		pkt->payload.ptw.payload =
		        ptd_gen_bits(rng, pkt->payload.ptw.plc ? 64 : 32);
		pkt->payload.ptw.ip = (uint32_t)ptd_rng_bit(rng);
		break;
	case GK_COUNT:
		break;
	}
}

/* A packet that hardware puts into a PSB+. */
static void ptd_gen_psbplus(struct ptd_gen *gen, struct pt_packet *pkt)
{
	static const enum ptd_gen_kind kinds[] = {
	        GK_TSC,  GK_TMA, GK_CBR, GK_PIP, GK_VMCS,
	        GK_MODE, GK_FUP, GK_PAD, GK_MTC, GK_CYC};

	ptd_gen_kind(gen, pkt,
	             kinds[ptd_rng_below(&gen->rng,
	                                 sizeof(kinds) / sizeof(kinds[0]))]);
}

static uint64_t ptd_gen_psb_interval(struct ptd_gen *gen)
{
	struct ptd_rng *rng = &gen->rng;

	if (gen->profile == PTD_GEN_REALISTIC)
		return 1200 + ptd_rng_below(rng, 800);
	switch (ptd_rng_below(rng, 16)) {
	case 0:
		return 0; /* back-to-back PSB+ segments */
	case 1:
	case 2:
		return 1 + ptd_rng_below(rng, 8);
	default:
		return 1 + ptd_rng_below(rng, 4000);
	}
}

/* The realistic profile: a branch trace of user code with timing. */
static void ptd_gen_realistic(struct ptd_gen *gen, struct pt_packet *pkt)
{
	struct ptd_rng *rng = &gen->rng;
	uint64_t r = ptd_rng_below(rng, 1000);

	if (r < 430) {
		unsigned bits = ptd_rng_below(rng, 4)
		                        ? 6
		                        : 1 + (unsigned)ptd_rng_below(rng, 6);

		pkt->type = ppt_tnt_8;
		pkt->payload.tnt.bit_size = (uint8_t)bits;
		pkt->payload.tnt.payload =
		        ptd_rng_next(rng) & ((UINT64_C(1) << bits) - 1);
	} else if (r < 600) {
		/* TIP/FUP: a jump near the last IP, compressed as hardware
		 * does: the fewest bytes that reach the new IP. */
		uint64_t ip = gen->last_ip;
		uint64_t far = ptd_rng_below(rng, 16);

		if (far == 0)
			ip = UINT64_C(0x00007f0000000000) |
			     (ptd_rng_next(rng) & UINT64_C(0xffffffffff));
		else if (far < 4)
			ip += ptd_rng_below(rng, 1u << 24) - (1u << 23);
		else
			ip += ptd_rng_below(rng, 1u << 12) - (1u << 11);
		pkt->type = r < 560 ? ppt_tip : r < 590 ? ppt_fup : ppt_tip_pge;
		if ((ip >> 16) == (gen->last_ip >> 16)) {
			pkt->payload.ip.ipc = pt_ipc_update_16;
			pkt->payload.ip.ip = ip & 0xffff;
		} else if ((ip >> 32) == (gen->last_ip >> 32)) {
			pkt->payload.ip.ipc = pt_ipc_update_32;
			pkt->payload.ip.ip = ip & 0xffffffff;
		} else {
			pkt->payload.ip.ipc = pt_ipc_sext_48;
			pkt->payload.ip.ip = ip & UINT64_C(0xffffffffffff);
		}
		gen->last_ip = ip;
	} else if (r < 610) {
		pkt->type = ppt_tip_pgd;
		pkt->payload.ip.ipc = pt_ipc_suppressed;
	} else if (r < 640) {
		pkt->type = ppt_tnt_64;
		pkt->payload.tnt.bit_size = 47;
		pkt->payload.tnt.payload =
		        ptd_rng_next(rng) & ((UINT64_C(1) << 47) - 1);
	} else if (r < 740) {
		pkt->type = ppt_mtc;
		pkt->payload.mtc.ctc = (uint8_t)ptd_rng_next(rng);
	} else if (r < 920) {
		pkt->type = ppt_cyc;
		pkt->payload.cyc.value = ptd_rng_below(rng, 4)
		                                 ? ptd_rng_below(rng, 32)
		                                 : ptd_rng_below(rng, 4096);
	} else if (r < 960) {
		pkt->type = ppt_pad;
	} else if (r < 975) {
		ptd_gen_kind(gen, pkt, GK_MODE);
	} else if (r < 985) {
		ptd_gen_kind(gen, pkt, GK_TSC);
	} else if (r < 990) {
		ptd_gen_kind(gen, pkt, GK_CBR);
	} else if (r < 995) {
		ptd_gen_kind(gen, pkt, GK_PTW);
	} else if (r < 998) {
		ptd_gen_kind(gen, pkt, GK_PIP);
	} else {
		ptd_gen_kind(gen, pkt, GK_OVF);
	}
}

void ptd_gen_next(struct ptd_gen *gen, struct pt_packet *pkt)
{
	memset(pkt, 0, sizeof(*pkt));

	if (gen->psbplus_left > 0) {
		gen->psbplus_left -= 1;
		ptd_gen_psbplus(gen, pkt);
		return;
	}
	if (gen->psbplus_left == 0) {
		gen->psbplus_left = -1;
		gen->until_psb = ptd_gen_psb_interval(gen);
		pkt->type = ppt_psbend;
		return;
	}
	if (gen->until_psb == 0) {
		gen->psbplus_left = (int)ptd_rng_below(&gen->rng, 9);
		pkt->type = ppt_psb;
		return;
	}
	gen->until_psb -= 1;
	if (gen->profile == PTD_GEN_REALISTIC)
		ptd_gen_realistic(gen, pkt);
	else
		ptd_gen_kind(
		        gen, pkt,
		        (enum ptd_gen_kind)ptd_rng_below(&gen->rng, GK_COUNT));
}

int64_t ptd_gen_fill(struct ptd_gen *gen, uint8_t *buf, size_t size,
                     uint64_t *npackets)
{
	struct pt_config config;
	struct pt_encoder *encoder;
	uint64_t count = 0, offset = 0;
	int errcode;

	pt_config_init(&config);
	config.begin = buf;
	config.end = buf + size;
	encoder = pt_alloc_encoder(&config);
	if (!encoder)
		return -pte_nomem;

	for (;;) {
		struct pt_packet pkt;

		ptd_gen_next(gen, &pkt);
		errcode = pt_enc_next(encoder, &pkt);
		if (errcode < 0)
			break;
		count += 1;
	}
	if (errcode != -pte_eos) {
		pt_free_encoder(encoder);
		return errcode;
	}
	errcode = pt_enc_get_offset(encoder, &offset);
	pt_free_encoder(encoder);
	if (errcode < 0)
		return errcode;
	if (npackets)
		*npackets = count;
	return (int64_t)offset;
}
