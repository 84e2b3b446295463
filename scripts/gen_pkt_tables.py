#!/usr/bin/env python3
"""Generate lib/packet/pkt_tables.h: the opcode classes of the packet decoder.

Usage: python3 scripts/gen_pkt_tables.py > lib/packet/pkt_tables.h
The rules follow the Intel SDM packet formats (Vol. 3C, chapter "Intel
Processor Trace", section "Packet Definitions").  tests/unit/test_packet_tables.c
checks the committed tables against the same rules written in C.
"""


def first_byte_class(b):
    if b == 0x00:
        return 'PKC_PAD'
    if b == 0x02:
        return 'PKC_EXT'
    if b & 3 == 3:
        return 'PKC_CYC'
    if b & 1 == 0:
        return 'PKC_TNT8'
    lo5 = b & 0x1f
    ipk = {0x1d: 'PKC_FUP', 0x0d: 'PKC_TIP', 0x11: 'PKC_TIP_PGE', 0x01: 'PKC_TIP_PGD'}
    if lo5 in ipk:
        return ipk[lo5]
    return {0x99: 'PKC_MODE', 0x19: 'PKC_TSC', 0x59: 'PKC_MTC',
            0xd9: 'PKC_TRIG'}.get(b, 'PKC_UNKNOWN')


def ext_byte_class(e):
    m = {0x82: 'PKX_PSB', 0xa3: 'PKX_TNT64', 0x43: 'PKX_PIP', 0xf3: 'PKX_OVF',
         0x23: 'PKX_PSBEND', 0x03: 'PKX_CBR', 0x73: 'PKX_TMA', 0x83: 'PKX_STOP',
         0xc8: 'PKX_VMCS', 0xc3: 'PKX_EXT2', 0x62: 'PKX_EXSTOP', 0xe2: 'PKX_EXSTOP',
         0xc2: 'PKX_MWAIT', 0x22: 'PKX_PWRE', 0xa2: 'PKX_PWRX', 0x13: 'PKX_CFE',
         0x53: 'PKX_EVD', 0x63: 'PKX_BBP', 0x33: 'PKX_BEP', 0xb3: 'PKX_BEP'}
    if e in m:
        return m[e]
    if e & 0x1f == 0x12:
        return 'PKX_PTW'
    return 'PKX_UNKNOWN'


# Packet types, in the order of enum pt_packet_type.
PPT = {'pad': 'ppt_pad', 'tip': 'ppt_tip', 'tip.pge': 'ppt_tip_pge',
       'tip.pgd': 'ppt_tip_pgd', 'fup': 'ppt_fup', 'tnt8': 'ppt_tnt_8',
       'tsc': 'ppt_tsc', 'mtc': 'ppt_mtc', 'cyc': 'ppt_cyc'}
IP_SIZE = [0, 2, 4, 6, 6, None, 8, None]


def mask(nbytes):
    return (1 << (8 * nbytes)) - 1


def fast_entry(b):
    """(type, size, a_const, a_mask, b_const, b_mask) or None for the slow path.

    A packet whose first byte alone determines its size and layout is decoded
    without branches: slot A is the payload's first 8 bytes (offset 8 in
    struct pt_packet), slot B the next 8 (offset 16); each is a constant
    or'ed with the 8 bytes after the opcode and'ed with a mask."""
    c = first_byte_class(b)
    if c == 'PKC_PAD':
        return ('ppt_pad', 1, 0, 0, 0, 0)
    if c == 'PKC_TNT8':
        raw = b >> 1
        bits = raw.bit_length() - 1
        return ('ppt_tnt_8', 1, bits, 0, raw & ~(1 << bits), 0)
    if c in ('PKC_TIP', 'PKC_TIP_PGE', 'PKC_TIP_PGD', 'PKC_FUP'):
        ipc = b >> 5
        n = IP_SIZE[ipc]
        if n is None:
            return None
        t = {'PKC_TIP': 'ppt_tip', 'PKC_TIP_PGE': 'ppt_tip_pge',
             'PKC_TIP_PGD': 'ppt_tip_pgd', 'PKC_FUP': 'ppt_fup'}[c]
        return (t, 1 + n, ipc, 0, 0, mask(n))
    if c == 'PKC_TSC':
        return ('ppt_tsc', 8, 0, mask(7), 0, 0)
    if c == 'PKC_MTC':
        return ('ppt_mtc', 2, 0, mask(1), 0, 0)
    if c == 'PKC_CYC' and not b & 4:
        return ('ppt_cyc', 1, b >> 3, 0, 0, 0)
    return None


def fast_table():
    lines = ["/* Branch-free decoding of packets that the first byte fully describes;",
             " * size 0 means: use the general decoder.  See fast_entry() in",
             " * scripts/gen_pkt_tables.py. */",
             "static const struct ptd_pkt_fast ptd_pkt_fast[256] = {"]
    for b in range(256):
        e = fast_entry(b)
        if e is None:
            lines.append(f"\t/* 0x{b:02x} */ {{0, 0, 0, 0, 0, 0}},")
        else:
            t, size, ac, am, bc, bm = e
            lines.append(f"\t/* 0x{b:02x} */ {{{t}, {size}, 0x{ac:x}, 0x{am:x}, "
                         f"0x{bc:x}, 0x{bm:x}}},")
    lines.append("};")
    return lines


def image_entry(b):
    """(head type, head size, a_const, a_mask, b_const, b_mask, shift) or None.

    The batch decoder (lib/packet/pkt_batch_avx2.c) writes a packet as one
    32-byte store of  c | ((w & m) << c[3])  where w is the 8 bytes after the
    opcode in every 64-bit lane: lane 0 the type and size, lanes 1 and 2
    payload slots A and B as in fast_entry(), lane 3 spills into the next
    packet and holds the shift count.  It is fast_entry() for every opcode
    that has one; a CYC opcode with the extension bit set gets the image of
    the two-byte CYC, which the batch decoder uses only after checking that
    the second byte ends the packet: the value is opcode >> 3 | (second byte
    >> 1) << 5, i.e. (w & 0xfe) << 4."""
    e = fast_entry(b)
    if e is not None:
        t, size, ac, am, bc, bm = e
        return (t, size, ac, am, bc, bm, 0)
    if first_byte_class(b) == 'PKC_CYC':
        return ('ppt_cyc', 2, b >> 3, 0xfe, 0, 0, 4)
    return None


def image_table():
    lines = ["/* The packet images of the batch decoder; see image_entry() in",
             " * scripts/gen_pkt_tables.py.  All zero: the general decoder. */",
             "static const struct ptd_pkt_image ptd_pkt_image[256] = {"]
    for b in range(256):
        e = image_entry(b)
        if e is None:
            lines.append(f"\t/* 0x{b:02x} */ {{{{0, 0, 0, 0}}, {{0, 0, 0, 0}}}},")
        else:
            t, size, ac, am, bc, bm, sh = e
            lines.append(f"\t/* 0x{b:02x} */ {{{{PTD_IMG_HEAD({t}, {size}), 0x{ac:x}, "
                         f"0x{bc:x}, {sh}}}, {{0, 0x{am:x}, 0x{bm:x}, 0}}}},")
    lines.append("};")
    return lines


def table(name, comment, fn):
    lines = [f"/* {comment} */", f"static const uint8_t {name}[256] = {{"]
    for i in range(0, 256, 4):
        lines.append("\t" + " ".join(f"{fn(b)}," for b in range(i, i + 4)))
    lines.append("};")
    return lines


out = ["/* SPDX-License-Identifier: BSD-3-Clause */",
       "/* Opcode classification tables for the packet decoder.",
       " *",
       " * Generated by scripts/gen_pkt_tables.py; do not edit by hand.",
       " * tests/unit/test_packet_tables.c checks every entry. */",
       "#ifndef PTD_PKT_TABLES_H", "#define PTD_PKT_TABLES_H", "",
       "#include \"pkt_format.h\"", "", "/* clang-format off */", ""]
out += table("ptd_pkt_class", "Class of the first byte of a packet.", first_byte_class)
out.append("")
out += table("ptd_pkt_ext_class",
             "Class of the second byte of a packet whose first byte is 0x02.",
             ext_byte_class)
out.append("")
out += fast_table()
out.append("")
out += image_table()
out += ["", "/* clang-format on */", "", "#endif /* PTD_PKT_TABLES_H */"]
print("\n".join(out))
