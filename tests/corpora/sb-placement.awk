# Where ptdump --time --sb --sb:offset --sb:time --sb:filename printed the
# sideband records among the packets (tests/corpora/check-sideband*.sh).
# Record lines: "<file>:<offset>  [<tsc>  ]<name> ..."; timing packets end
# in "tsc <16 hex digits>" (or "<unavailable>" before the first TSC).
# Prints: the number of records, of records printed twice, of records
# printed after a timing packet that had reached their time, of records
# printed before the first timing packet that reached it, and of records
# without a time printed after a timing packet (they are due at the first).
function hex(s,  v, i) {
	v = 0
	for (i = 1; i <= length(s); i++)
		v = v * 16 + index("0123456789abcdef", substr(s, i, 1)) - 1
	return v
}
$1 ~ /\.pevent:[0-9a-f]+$/ {
	n++
	if (seen[$1]++)
		dup++
	if ($2 ~ /^[0-9a-f]+$/ && length($2) == 16) {
		t = hex($2)
		if (have_last && last >= t)
			late++
		wait[++nw] = t
	} else if (have_last)
		late_untimed++
	next
}
$(NF - 1) == "tsc" && $NF ~ /^[0-9a-f]+$/ {
	now = hex($NF)
	for (i = 1; i <= nw; i++)
		if (wait[i] > now)
			early++
	nw = 0
	last = now
	have_last = 1
}
END {
	printf "%d %d %d %d %d", n, dup, late, early, late_untimed
}
