# Where ptdump --time --sb --sb:offset --sb:time --sb:filename printed the
# sideband records among the packets (tests/corpora/check-sideband*.sh).
# Record lines: "<file>:<offset>  [<tsc>  ]<name> ..."; timing packets end
# in "tsc <16 hex digits>" (or "<unavailable>" before the first TSC).  The
# times are compared as 16-digit strings (exact, where awk's numbers are
# not above 2^53).
# Prints: the number of records, of records printed twice, of records
# printed after a timing packet that had reached their time, of records
# printed before the first timing packet that reached it, and of records
# without a time printed after a timing packet (they are due at the first).
function hex16(s) {
	return length(s) == 16 && s ~ /^[0-9a-f]+$/
}
$1 ~ /^[^[].*\.pevent:[0-9a-f]+$/ {
	n++
	if (seen[$1]++)
		dup++
	if (hex16($2)) {
		if (have_last && ("" last) >= ("" $2))
			late++
		wait[++nw] = $2
	} else if (have_last)
		late_untimed++
	next
}
$(NF - 1) == "tsc" && hex16($NF) {
	for (i = 1; i <= nw; i++)
		if (("" wait[i]) > ("" $NF))
			early++
	nw = 0
	last = $NF
	have_last = 1
}
END {
	printf "%d %d %d %d %d", n, dup, late, early, late_untimed
}
