// SPDX-License-Identifier: BSD-3-Clause
// The packet listing of libipt_program.c from a C++ program: libipt's
// header is used from C++ (LLDB's decoder, for one), so ptdecode's headers
// must compile as C++ (extern "C", no C-only constructs in inline
// functions) and link from C++.  Every public header is included; the
// output must be the C program's, byte for byte.
#include <intel-pt.h>
#include <ptdecode/ptd_clock.h>
#include <ptdecode/ptd_flow.h>
#include <ptdecode/ptd_flow_batch.h>
#include <ptdecode/ptd_image.h>
#include <ptdecode/ptd_perf.h>
#include <ptdecode/ptd_pevent.h>
#include <ptdecode/ptd_query.h>
#include <ptdecode/ptd_rtit.h>
#include <ptdecode/ptd_time.h>
#include <ptdecode/ptdecode.h>

#include <cinttypes>
#include <cstdio>
#include <fstream>
#include <iterator>
#include <vector>

namespace
{

// The payload columns of libipt_program.c.
void print_payload(const pt_packet &packet)
{
	switch (packet.type) {
	case ppt_tip:
	case ppt_tip_pge:
	case ppt_tip_pgd:
	case ppt_fup:
		std::printf(" ipc %d ip %" PRIx64,
		            static_cast<int>(packet.payload.ip.ipc),
		            packet.payload.ip.ip);
		break;
	case ppt_tnt_8:
	case ppt_tnt_64:
		std::printf(" tnt %u/%" PRIx64, packet.payload.tnt.bit_size,
		            packet.payload.tnt.payload);
		break;
	case ppt_tsc:
		std::printf(" tsc %" PRIx64, packet.payload.tsc.tsc);
		break;
	case ppt_tma:
		std::printf(" tma %x %x", packet.payload.tma.ctc,
		            packet.payload.tma.fc);
		break;
	case ppt_mtc:
		std::printf(" mtc %x", packet.payload.mtc.ctc);
		break;
	case ppt_cyc:
		std::printf(" cyc %" PRIx64, packet.payload.cyc.value);
		break;
	case ppt_cbr:
		std::printf(" cbr %u", packet.payload.cbr.ratio);
		break;
	case ppt_mode:
		std::printf(" mode %d %d",
		            static_cast<int>(packet.payload.mode.leaf),
		            static_cast<int>(pt_get_exec_mode(
		                    &packet.payload.mode.bits.exec)));
		break;
	default:
		break;
	}
}

} // namespace

int main(int argc, char **argv)
{
	if (argc != 2) {
		std::fprintf(stderr, "usage: %s <trace>\n", argv[0]);
		return 2;
	}
	std::ifstream in(argv[1], std::ios::binary);
	std::vector<uint8_t> buf((std::istreambuf_iterator<char>(in)),
	                         std::istreambuf_iterator<char>());
	if (!in.good() && !in.eof())
		return 1;
	if (buf.empty())
		return 1;

	pt_config config;
	pt_config_init(&config);
	config.begin = buf.data();
	config.end = buf.data() + buf.size();
	pt_packet_decoder *decoder = pt_pkt_alloc_decoder(&config);
	if (!decoder)
		return 1;

	for (int status = pt_pkt_sync_forward(decoder); status >= 0;) {
		pt_packet packet;
		uint64_t offset = 0;

		pt_pkt_get_offset(decoder, &offset);
		status = pt_pkt_next(decoder, &packet, sizeof(packet));
		if (status < 0) {
			if (status == -pte_eos)
				break;
			std::printf("%" PRIx64 ": error: %s\n", offset,
			            pt_errstr(pt_errcode(status)));
			status = pt_pkt_sync_forward(decoder);
			continue;
		}
		std::printf("%" PRIx64 ": type %d size %u", offset,
		            static_cast<int>(packet.type), packet.size);
		print_payload(packet);
		std::printf("\n");
	}
	pt_pkt_free_decoder(decoder);
	return 0;
}
