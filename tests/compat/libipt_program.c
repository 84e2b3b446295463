/* SPDX-License-Identifier: BSD-3-Clause */
/* A program written for libipt's packet API, used unchanged to check source
 * compatibility: it is compiled once against libipt and once against
 * ptdecode (only -I/-l differ) and both builds must print the same. */
#include <intel-pt.h>

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>

int main(int argc, char **argv)
{
	struct pt_packet_decoder *decoder;
	struct pt_config config;
	struct pt_version version;
	uint8_t *buf;
	long size;
	FILE *file;
	int status;

	if (argc != 2) {
		fprintf(stderr, "usage: %s <trace>\n", argv[0]);
		return 2;
	}
	file = fopen(argv[1], "rb");
	if (!file || fseek(file, 0, SEEK_END) != 0 || (size = ftell(file)) <= 0)
		return 1;
	rewind(file);
	buf = malloc((size_t)size);
	if (!buf || fread(buf, 1, (size_t)size, file) != (size_t)size)
		return 1;
	fclose(file);

	version = pt_library_version();
	fprintf(stderr, "library %u.%u%s%s\n", version.major, version.minor,
	        version.ext && version.ext[0] ? "-" : "",
	        version.ext ? version.ext : "");

	pt_config_init(&config);
	config.begin = buf;
	config.end = buf + size;
	decoder = pt_pkt_alloc_decoder(&config);
	if (!decoder)
		return 1;

	for (status = pt_pkt_sync_forward(decoder); status >= 0;) {
		struct pt_packet packet;
		uint64_t offset;

		pt_pkt_get_offset(decoder, &offset);
		status = pt_pkt_next(decoder, &packet, sizeof(packet));
		if (status < 0) {
			if (status == -pte_eos)
				break;
			printf("%" PRIx64 ": error: %s\n", offset,
			       pt_errstr(pt_errcode(status)));
			status = pt_pkt_sync_forward(decoder);
			continue;
		}
		printf("%" PRIx64 ": type %d size %u", offset, (int)packet.type,
		       packet.size);
		switch (packet.type) {
		case ppt_tip:
		case ppt_tip_pge:
		case ppt_tip_pgd:
		case ppt_fup:
			printf(" ipc %d ip %" PRIx64,
			       (int)packet.payload.ip.ipc,
			       packet.payload.ip.ip);
			break;
		case ppt_tnt_8:
		case ppt_tnt_64:
			printf(" tnt %u/%" PRIx64, packet.payload.tnt.bit_size,
			       packet.payload.tnt.payload);
			break;
		case ppt_tsc:
			printf(" tsc %" PRIx64, packet.payload.tsc.tsc);
			break;
		case ppt_tma:
			printf(" tma %x %x", packet.payload.tma.ctc,
			       packet.payload.tma.fc);
			break;
		case ppt_mtc:
			printf(" mtc %x", packet.payload.mtc.ctc);
			break;
		case ppt_cyc:
			printf(" cyc %" PRIx64, packet.payload.cyc.value);
			break;
		case ppt_cbr:
			printf(" cbr %u", packet.payload.cbr.ratio);
			break;
		case ppt_mode:
			printf(" mode %d %d", (int)packet.payload.mode.leaf,
			       (int)pt_get_exec_mode(
			               &packet.payload.mode.bits.exec));
			break;
		default:
			break;
		}
		printf("\n");
	}
	pt_pkt_free_decoder(decoder);
	free(buf);
	return 0;
}
