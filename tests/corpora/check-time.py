#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""Check ptdump --time on a real trace with TSC, MTC and CYC packets.

usage: check-time.py [--exact] <ptdump> <trace> <mtc_freq> <eax> <ebx>
                     [<ptdump options>...]

Runs `ptdump --time` (ptdecode's accurate estimator) with the given timing
configuration and checks the listing:

  - ptdump exits with status 0 and prints no diagnostic line after the
    first TSC (before it there is no wall-clock time to print);
  - the time never steps backwards from one printed value to the next;
  - at every MTC and every TSC after the first, the estimate printed just
    before it (on the previous timing line) is within 4 TSC ticks of the time
    that packet sets on average, and never 1,000 or more off;

A TSC sets its value; an MTC sets the time on its own line.  Independently
of the library, the script also works out the time each TSC and MTC sets by
the SDM's rules (36.8.3: TSC, then the TMA's CTC and FastCounter, then the
CTC deltas of the MTCs converted with CPUID 0x15 ebx / eax) and reports how
many lines differ: none when the configuration fits the trace; where the
TSCs contradict it, ptdump corrects the MTC times and says so on standard
error.  Prints the counts, the mean and the maximum per trace.  Exits 77
(ctest: skipped) when the trace is absent.

With --exact (for traces without CYC packets, where the estimate before an
MTC is the previous MTC's time), the mean and maximum are not checked;
instead every MTC and TSC line must show exactly the time the SDM's rules
give with the configuration.
"""
import subprocess
import sys


def main(argv):
    exact = len(argv) > 1 and argv[1] == "--exact"
    if exact:
        argv = argv[:1] + argv[2:]
    if len(argv) < 6:
        print(__doc__)
        return 2
    ptdump, trace = argv[1], argv[2]
    mtc_freq, eax, ebx = int(argv[3], 0), int(argv[4], 0), int(argv[5], 0)
    extra = argv[6:]
    try:
        open(trace, "rb").close()
    except OSError:
        print("SKIP: corpus trace %s not found; the real-trace tests need "
              "the corpora folder (CMake cache variable PTD_CORPORA_DIR)."
              % trace)
        return 77

    cmd = [ptdump, "--time", "--mtc-freq", str(mtc_freq),
           "--cpuid-0x15.eax", str(eax), "--cpuid-0x15.ebx", str(ebx)]
    cmd += extra + [trace]
    run = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    out = run.stdout.decode("ascii", "replace").splitlines()
    note = " ".join(line for line in
                    run.stderr.decode("ascii", "replace").splitlines()
                    if "disagree" in line)
    fail = []
    if run.returncode != 0:
        fail.append("ptdump exited with status %d" % run.returncode)
    # Before the first TSC there is no wall-clock time (and perhaps no
    # calibration yet): diagnostics there are expected.
    first_tsc = next((i for i, line in enumerate(out)
                      if len(line.split()) > 1 and line.split()[1] == "tsc"),
                     len(out))
    diags = [line for line in out[first_tsc:] if line.startswith("[")]
    if diags:
        fail.append("%d diagnostic line(s), first: %s" % (len(diags), diags[0]))

    mask = (1 << (mtc_freq + 8)) - 1
    anchor = ctc = total = None
    prev = None          # the last printed estimate
    backwards = 0
    back_max = 0
    errors = []          # |estimate before - reference| at MTC/TSC
    wrong = 0            # MTC/TSC lines not showing their reference
    for line in out:
        f = line.split()
        if len(f) < 2 or line.startswith("["):
            continue
        kind = f[1]
        est = None
        if len(f) >= 4 and f[-2] == "tsc" and f[-1] != "<unavailable>":
            est = int(f[-1], 16)
        ref = None
        if kind == "tsc":
            ref = int(f[2], 16)
            anchor, ctc, total = ref, None, 0
        elif kind == "tma" and anchor is not None:
            c, fc = (int(x, 16) for x in line.split(None, 2)[2]
                     .split("tsc")[0].replace(",", " ").split())
            anchor -= fc
            ctc, total = c & mask, 0
        elif kind == "mtc" and ctc is not None:
            nxt = (int(f[2], 16) << mtc_freq) & mask
            total += (nxt - ctc) & mask
            ctc = nxt
            ref = anchor + total * ebx // eax
        if ref is not None and est is not None and est != ref:
            wrong += 1
        # The time an MTC sets is the one on its line (ptdump corrects
        # MTC times when the TSCs contradict the configuration, and says
        # so); a TSC sets its value.
        if kind == "mtc" and est is not None:
            ref = est
        if ref is not None and prev is not None and kind in ("mtc", "tsc"):
            errors.append(abs(prev - ref))
        if est is not None:
            if prev is not None and est < prev:
                backwards += 1
                back_max = max(back_max, prev - est)
            prev = est

    n = len(errors)
    mean = sum(errors) / n if n else 0.0
    mx = max(errors) if n else 0
    print("%s: %d MTC/TSC references, error of the estimate before them: "
          "mean %.2f, max %d TSC ticks; %d backwards steps (max %d); "
          "%d MTC/TSC lines differ from the SDM computation with the "
          "configuration given%s"
          % (trace, n, mean, mx, backwards, back_max, wrong,
             " (ptdump: %s)" % note.strip() if note else ""))
    if not n:
        fail.append("no MTC or TSC reference found")
    if backwards:
        fail.append("the time steps backwards %d times" % backwards)
    if exact and wrong:
        fail.append("%d MTC/TSC lines differ from the SDM computation"
                    % wrong)
    if not exact and mean > 4:
        fail.append("mean error %.2f is above 4 ticks" % mean)
    if not exact and mx >= 1000:
        fail.append("maximum error %d is not below 1,000 ticks" % mx)
    for msg in fail:
        print("FAIL: " + msg)
    return 1 if fail else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
